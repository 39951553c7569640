#!/usr/bin/env bash
# make screenshots: the pictures of the HTML reports that the README and
# docs/reports.md show, from the shipped eval set alone, with no store and
# no model. They show
# the judge of the local-hash-v1 fixtures against the shipped baseline, a
# regression with its diff. They show the three fixture sets compared
# pair by pair (hybrid, dense and local-hash-v1), and the calibration of
# the three. The reports go to .ragbaseline/screenshots, the PNGs (256
# colours) to docs/images.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin}
GO=${GO:-go}
OUT=.ragbaseline/screenshots
SET=eval/rag-retrieval
IMG=docs/images
rm -rf "$OUT"
mkdir -p "$OUT" "$IMG"
scripts/browser.sh >/dev/null

# Exit 3: the regression is what the picture shows.
"$BIN/rag-eval" -q --fixtures "$SET/fixtures-local" --compare-to "$SET/reports/baseline.json" \
	--json-report "$OUT/current.json" --markdown-report "$OUT/current.md" \
	--diff-json-report "$OUT/diff.json" --diff-markdown-report "$OUT/diff.md" \
	--html-report "$OUT/current.html" || [ $? -eq 3 ]
"$BIN/rag-eval" compare -q --side hybrid="$SET/fixtures" --side dense="$SET/fixtures-dense" --side local-hash-v1="$SET/fixtures-local" \
	--json-report "$OUT/compare.json" --markdown-report "$OUT/compare.md" --html-report "$OUT/compare.html"
"$BIN/rag-eval" calibrate -q --fixtures "$SET/fixtures" --fixtures "$SET/fixtures-dense" --fixtures "$SET/fixtures-local" \
	--json-report "$OUT/calibration.json" --markdown-report "$OUT/calibration.md" --html-report "$OUT/calibration.html"

shot() { $GO run ./tools/screenshot -width 1100 -height 760 "$@"; }
shot -in "$OUT/current.html" -out "$IMG/html-diff.png"
shot -in "$OUT/current.html" -out "$IMG/html-case.png" \
	-click '#case-chat-para-en-cert-expired > summary' -scroll '#case-chat-para-en-cert-expired'
shot -in "$OUT/compare.html" -out "$IMG/html-compare.png" -scroll '#summary'
shot -in "$OUT/calibration.html" -out "$IMG/html-calibration.png" -scroll 'section.mode h3'
ls -l "$IMG"/html-*.png
