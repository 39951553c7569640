#!/usr/bin/env bash
# make demo: the whole loop on the embedded default, no services.
# seed → snapshot hybrid and dense → eval against the shipped baseline →
# compare hybrid vs dense → an embedder change: the same with the lexical
# local-hash-v1, compared with the default use-multilingual-v3 → calibrate.
# Everything it writes is under .ragbaseline/demo, which git ignores. The
# shipped eval set is only read.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin}
DEMO=${DEMO_DIR:-.ragbaseline/demo}
SET=eval/rag-retrieval
start=$(date +%s%N)

rm -rf "$DEMO"
mkdir -p "$DEMO/reports"
export RAG_STORE=embedded RAG_DATA_DIR="$DEMO/data"

step() { printf '\n== %s\n' "$*"; }

step "rag-seed: load $SET/seed-docs into the embedded store ($DEMO/data), embedded by use-multilingual-v3"
"$BIN/rag-seed"

step "rag-snapshot --search-mode hybrid → $DEMO/fixtures"
"$BIN/rag-snapshot" --search-mode hybrid --fixtures "$DEMO/fixtures" --skip-eval

step "rag-snapshot --search-mode dense → $DEMO/fixtures-dense"
"$BIN/rag-snapshot" --search-mode dense --fixtures "$DEMO/fixtures-dense" --skip-eval

step "rag-eval: judge the hybrid fixtures against the shipped baseline"
eval_status=0
"$BIN/rag-eval" --fixtures "$DEMO/fixtures" \
	--json-report "$DEMO/reports/current.json" --markdown-report "$DEMO/reports/current.md" \
	--compare-to "$SET/reports/baseline.json" \
	--diff-json-report "$DEMO/reports/baseline-diff.json" --diff-markdown-report "$DEMO/reports/baseline-diff.md" \
	--html-report "$DEMO/reports/current.html" ||
	eval_status=$?

step "rag-eval compare: hybrid vs dense"
"$BIN/rag-eval" compare --left "$DEMO/fixtures" --right "$DEMO/fixtures-dense" \
	--json-report "$DEMO/reports/compare-hybrid-dense.json" --markdown-report "$DEMO/reports/compare-hybrid-dense.md" \
	--html-report "$DEMO/reports/compare-hybrid-dense.html"

step "an embedder change: seed and snapshot with local-hash-v1 (lexical, no model) → $DEMO/fixtures-local"
RAG_DATA_DIR="$DEMO/data-local" "$BIN/rag-seed" --embedder local
RAG_DATA_DIR="$DEMO/data-local" "$BIN/rag-snapshot" --embedder local --fixtures "$DEMO/fixtures-local" --skip-eval

step "rag-eval compare: use-multilingual-v3 vs local-hash-v1 (hybrid)"
"$BIN/rag-eval" compare --left "$DEMO/fixtures" --left-name use-multilingual-v3 --right "$DEMO/fixtures-local" --right-name local-hash-v1 \
	--json-report "$DEMO/reports/compare-use-local.json" --markdown-report "$DEMO/reports/compare-use-local.md" \
	--html-report "$DEMO/reports/compare-use-local.html"

step "rag-eval calibrate: quality scores of expected vs other blocks"
"$BIN/rag-eval" calibrate --fixtures "$DEMO/fixtures" --fixtures "$DEMO/fixtures-dense" --fixtures "$DEMO/fixtures-local" \
	--json-report "$DEMO/reports/calibration.json" --markdown-report "$DEMO/reports/calibration.md" \
	--html-report "$DEMO/reports/calibration.html"

elapsed=$((($(date +%s%N) - start) / 1000000))
step "done in $((elapsed / 1000)).$(printf '%03d' $((elapsed % 1000))) s; reports in $DEMO/reports:"
ls -1 "$DEMO/reports" | sed "s|^|  $DEMO/reports/|"
printf '\nOpen in a browser (self-contained, offline; current.html leads with the baseline diff):\n'
for f in current compare-hybrid-dense compare-use-local calibration; do
	printf '  file://%s\n' "$(cd "$DEMO/reports" && pwd)/$f.html"
done
if [ "$eval_status" -ne 0 ]; then
	echo "rag-eval exited $eval_status against the shipped baseline (1: a case fails, 3: regression): read $DEMO/reports/baseline-diff.md" >&2
	exit "$eval_status"
fi
