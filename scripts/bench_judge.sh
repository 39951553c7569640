#!/usr/bin/env bash
# Judge 10,000 cases x 30 evidence blocks and compare with a plain read of
# the same files (cat to /dev/null). Usage: scripts/bench_judge.sh [cases] [blocks]
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-10000} blocks=${2:-30}
dir=${BENCH_DIR:-.ragbaseline/bench}/judge-$cases-$blocks
if [ ! -f "$dir/golden-cases.json" ]; then
  echo "generating $cases cases x $blocks blocks in $dir"
  go run ./tools/benchgen -cases "$cases" -blocks "$blocks" -out "$dir"
fi
go build -o bin/rag-eval ./cmd/rag-eval
echo "fixtures: $(du -sh "$dir/fixtures" | cut -f1) in $(ls "$dir/fixtures" | wc -l) files"
run="bin/rag-eval -q --cases $dir/golden-cases.json --fixtures $dir/fixtures --json-report $dir/out/report.json --markdown-report $dir/out/report.md"
# rag-eval exits 1, since some cases fail on random data. hyperfine -i accepts that.
hyperfine -i -w 2 -r 10 \
  "cat $dir/fixtures/*.json > /dev/null" \
  "$run"
/usr/bin/time -f 'rag-eval peak RSS %M KiB, %e s wall, %U s user, %S s sys' $run || true
