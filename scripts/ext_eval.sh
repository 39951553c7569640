#!/usr/bin/env bash
# make ext-eval: the shipped eval set through every shipped mapped-pipeline
# config (deploy/mapped/*.yaml) against the servers of make ext-services,
# beside the builtin pipeline's committed fixtures. It makes the comparison
# table of docs/mapped-pipeline.md.
#
# It loads the shipped corpus into each server under the default names, as
# make ext-services-load does. Then for each config it runs rag-snapshot into
# .ragbaseline/ext-eval/<config>/ and rag-eval into <config>.json|md. Then
# one rag-eval compare of every side against the builtin pipeline, the
# hybrid eval/rag-retrieval/fixtures, writes compare.json|md|html. The table
# goes to .ragbaseline/ext-eval/table.md and stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
GO=${GO:-go}
SET=eval/rag-retrieval
OUT=.ragbaseline/ext-eval
ENV_FILE=.ragbaseline/ext-services.env

die() { echo "ext-eval: $*" >&2; exit 2; }

[ -f "$ENV_FILE" ] || die "$ENV_FILE not found: start the servers first with make ext-services (docs/external-servers.md)"
# shellcheck disable=SC1090
. "./$ENV_FILE"
missing=()
[ -n "${WEAVIATE_URL:-}" ] || missing+=("Weaviate (make services-weaviate)")
[ -n "${OPENSEARCH_URL:-}" ] || missing+=("OpenSearch (make services-opensearch)")
[ -n "${CHROMA_URL:-}" ] || missing+=("Chroma (make services-chroma)")
[ ${#missing[@]} -eq 0 ] || die "not running: ${missing[*]}; make ext-services starts all three"
# The shipped configs' default names: a WEAVIATE_CLASS, OPENSEARCH_INDEX or
# CHROMA_COLLECTION of the caller's would make them search something else.
unset WEAVIATE_CLASS OPENSEARCH_INDEX CHROMA_COLLECTION

rm -rf "$OUT"
mkdir -p "$OUT"

# rag-eval exits 1 when a case fails: expected here, reported in the table.
judge() {
	local rc=0
	"$BIN/rag-eval" -q --fixtures "$1" --json-report "$OUT/$2.json" --markdown-report "$OUT/$2.md" || rc=$?
	[ "$rc" -le 1 ] || die "rag-eval --fixtures $1 failed (exit $rc)"
}

"$GO" run ./tools/extload

# The builtin pipeline: the committed fixtures, judged as make eval does.
judge "$SET/fixtures" builtin-hybrid
judge "$SET/fixtures-dense" builtin-dense

configs=(weaviate chroma opensearch-knn opensearch-bm25 opensearch-hybrid)
sides=(--side "builtin-hybrid=$SET/fixtures" --side "builtin-dense=$SET/fixtures-dense")
for c in "${configs[@]}"; do
	echo "ext-eval: $c"
	"$BIN/rag-snapshot" --pipeline-config "deploy/mapped/$c.yaml" --fixtures "$OUT/$c" --skip-eval
	judge "$OUT/$c" "$c"
	sides+=(--side "$c=$OUT/$c")
done
"$BIN/rag-eval" compare -q "${sides[@]}" --baseline builtin-hybrid \
	--json-report "$OUT/compare.json" --markdown-report "$OUT/compare.md" --html-report "$OUT/compare.html"

python3 - "$OUT" "${configs[@]}" <<'PY' | tee "$OUT/table.md"
import json, sys
out, configs = sys.argv[1], sys.argv[2:]
rows = [("builtin, hybrid (anchored fusion; committed fixtures)", "builtin-hybrid"),
        ("builtin, dense (committed fixtures)", "builtin-dense")]
search = {
    "weaviate": "hybrid: relativeScoreFusion, alpha 0.5, maxVectorDistance 0.84",
    "chroma": "dense: cosine",
    "opensearch-knn": "dense: lucene HNSW, cosinesimil, k 100",
    "opensearch-bm25": "bm25: match",
    "opensearch-hybrid": "hybrid: bool of match + knn, scores summed",
}
rows += [("`%s.yaml` (%s)" % (c, search[c]), c) for c in configs]
def num(v):
    return "n/a" if v is None else ("%.3f" % v).rstrip("0").rstrip(".")
print("| pipeline | cases passed | checks skipped | recall@5 | mrr | ndcg@5 | evidenceStatus none / weak / sufficient |")
print("|---|---|---|---|---|---|---|")
for label, name in rows:
    s = json.load(open("%s/%s.json" % (out, name), encoding="utf-8"))["summary"]
    skipped = sum(x["count"] for x in s.get("skippedChecks") or [])
    ev = s["evidenceStatus"]
    print("| %s | %d of %d | %d | %s | %s | %s | %d / %d / %d |" % (
        label, s["passCount"], s["caseCount"], skipped, num(s["recallAtK"]), num(s["mrr"]), num(s["ndcgAtK"]),
        ev.get("none", 0), ev.get("weak", 0), ev.get("sufficient", 0)))
PY
echo "ext-eval: fixtures, reports and compare.md (every side against builtin-hybrid) in $OUT"
