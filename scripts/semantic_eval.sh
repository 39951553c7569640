#!/usr/bin/env bash
# make semantic-eval: the semantic cases on both in-process embedders,
# hybrid and dense. The semantic cases are the golden cases tagged
# "semantic", gated with the rest of the golden file: cross-lingual,
# paraphrase and off-topic questions a lexical embedder cannot answer. They
# also include eval/rag-retrieval/cases/hard-cases.json, the ones the
# default pipeline still misses, which are not gated. Everything goes to
# .ragbaseline/semantic.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
OUT=.ragbaseline/semantic
SET=eval/rag-retrieval/cases
CASES="$OUT/semantic-cases.json"
rm -rf "$OUT" && mkdir -p "$OUT/reports"
python3 - "$SET/golden-cases.json" "$SET/hard-cases.json" "$CASES" <<'PY'
import json, sys
golden, hard, out = sys.argv[1:]
g = json.load(open(golden, encoding="utf-8"))
h = json.load(open(hard, encoding="utf-8"))
g["cases"] = [c for c in g["cases"] if "semantic" in c.get("tags", [])] + h["cases"]
json.dump(g, open(out, "w", encoding="utf-8"), ensure_ascii=False, indent=2)
PY
n=$(grep -c '"caseId"' "$CASES")
echo "$n semantic cases ($(grep -c '"caseId"' "$SET/hard-cases.json") of them in hard-cases.json)"
export RAG_STORE=embedded
for emb in use local; do
	RAG_DATA_DIR="$OUT/data-$emb" "$BIN/rag-seed" --embedder "$emb" >/dev/null
	for mode in hybrid dense; do
		RAG_DATA_DIR="$OUT/data-$emb" "$BIN/rag-snapshot" --embedder "$emb" --cases "$CASES" \
			--search-mode "$mode" --fixtures "$OUT/$emb-$mode" --skip-eval >/dev/null
		printf '%-6s %-6s ' "$emb" "$mode"
		"$BIN/rag-eval" --cases "$CASES" --fixtures "$OUT/$emb-$mode" \
			--json-report "$OUT/reports/$emb-$mode.json" --markdown-report "$OUT/reports/$emb-$mode.md" 2>&1 | head -n1 || true
	done
done
"$BIN/rag-eval" compare --cases "$CASES" --left "$OUT/use-hybrid" --left-name use-hybrid --right "$OUT/local-hybrid" --right-name local-hybrid \
	--json-report "$OUT/reports/compare-use-local.json" --markdown-report "$OUT/reports/compare-use-local.md"
"$BIN/rag-eval" compare --cases "$CASES" --left "$OUT/use-hybrid" --left-name use-hybrid --right "$OUT/use-dense" --right-name use-dense \
	--json-report "$OUT/reports/compare-use-hybrid-dense.json" --markdown-report "$OUT/reports/compare-use-hybrid-dense.md"
echo "reports in $OUT/reports"
