# ragbaseline. `make eval` and `make test` work on a fresh clone with nothing else run first.
GO       ?= go
BIN      ?= bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
FUZZTIME ?= 30s

.PHONY: all build eval eval-check test test-short bench bench-judge bench-trec fuzz vet clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/rag-eval ./cmd/eval

# Judge the shipped eval set offline and write eval/rag-retrieval/reports/baseline.json|md.
eval: build
	$(BIN)/rag-eval

# Like eval, and fail if the regenerated reports differ from the committed ones.
eval-check: eval
	git diff --exit-code -- eval/rag-retrieval/reports

test:
	$(GO) vet ./...
	$(GO) test ./...

test-short:
	$(GO) test -short ./...

# Benchmarks; figures and how to read them are in README.md.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Judge 10,000 cases x 30 blocks (~200 MB) and compare with cat of the same files.
bench-judge: build
	scripts/bench_judge.sh

# rag-eval trec against pytrec_eval on 20,000 queries x 100 documents.
bench-trec: build
	scripts/bench_trec.sh

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseGolden$$' -fuzztime $(FUZZTIME) ./internal/contract
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFixture$$' -fuzztime $(FUZZTIME) ./internal/contract
	$(GO) test -run '^$$' -fuzz '^FuzzReadQrels$$' -fuzztime $(FUZZTIME) ./internal/metrics
	$(GO) test -run '^$$' -fuzz '^FuzzReadRun$$' -fuzztime $(FUZZTIME) ./internal/metrics

vet:
	$(GO) vet ./...

clean:
	rm -rf $(BIN)
