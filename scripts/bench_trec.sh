#!/usr/bin/env bash
# rag-eval trec against pytrec_eval (trec_eval 9.0.8's C core) on generated
# qrels and runs. It checks that the values are identical, then times both,
# first on eleven common measures, then on -m all_trec.
# Usage: scripts/bench_trec.sh [queries...]   (default: 10000 20000 40000)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${BENCH_DIR:-.ragbaseline/bench}/trec
venv=${BENCH_DIR:-.ragbaseline/bench}/pytrec-venv
mkdir -p "$dir"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q pytrec-eval-terrier
fi
go build -o bin/rag-eval ./cmd/rag-eval
M="-m num_ret -m num_rel -m num_rel_ret -m map -m recip_rank -m Rprec -m P.5,10,20 -m recall.5,10,100 -m ndcg_cut.5,10,20 -m success.1,5,10"
queries=("$@")
[ ${#queries[@]} -gt 0 ] || queries=(10000 20000 40000)
cmds=()
for n in "${queries[@]}"; do
  [ -f "$dir/q$n.txt" ] || go run ./tools/trecgen -seed 1 -queries "$n" -qrels "$dir/q$n.txt" -run "$dir/r$n.txt"
  echo "== $n queries x 100 documents: values vs pytrec_eval"
  "$venv/bin/python" scripts/bench_trec.py --rag-eval bin/rag-eval "$dir/q$n.txt" "$dir/r$n.txt"
  cmds+=("bin/rag-eval trec -q $M $dir/q$n.txt $dir/r$n.txt")
done
n=${queries[$(( ${#queries[@]} > 1 ? 1 : 0 ))]}
hyperfine -N -w 2 -r 10 "${cmds[@]}" "$venv/bin/python scripts/bench_trec.py --pytrec-only $dir/q$n.txt $dir/r$n.txt"

# Every measure of -m all_trec that pytrec_eval exposes, per query.
cmds=()
for n in "${queries[@]}"; do
  echo "== $n queries x 100 documents, -m all_trec: values vs pytrec_eval"
  "$venv/bin/python" scripts/bench_trec.py --measures all_trec --rag-eval bin/rag-eval "$dir/q$n.txt" "$dir/r$n.txt"
  cmds+=("bin/rag-eval trec -q -m all_trec $dir/q$n.txt $dir/r$n.txt")
done
n=${queries[$(( ${#queries[@]} > 1 ? 1 : 0 ))]}
hyperfine -N -w 2 -r 10 "${cmds[@]}" "$venv/bin/python scripts/bench_trec.py --pytrec-only --measures all_trec $dir/q$n.txt $dir/r$n.txt"
