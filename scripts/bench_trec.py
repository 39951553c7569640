#!/usr/bin/env python3
"""Cross-check and time `rag-eval trec` against pytrec_eval.

pytrec_eval (PyPI: pytrec-eval-terrier) wraps trec_eval 9.0.8's C measure
code, so it is an independent oracle for the per-query values of
`rag-eval trec -q`. Generate inputs with the repository's generator:

    go run ./tools/trecgen -seed 1 -queries 20000 \
        -qrels /tmp/q.txt -run /tmp/r.txt
    go build -o /tmp/rag-eval ./cmd/rag-eval
    python3 -m venv /tmp/pytrec && /tmp/pytrec/bin/pip install pytrec-eval-terrier
    /tmp/pytrec/bin/python scripts/bench_trec.py --rag-eval /tmp/rag-eval /tmp/q.txt /tmp/r.txt

It prints pytrec_eval's time (parse + evaluate), rag-eval's time, and per
measure the largest absolute difference between the two at full precision
(rag-eval --decimals 17) and the number of values whose trec_eval rendering
("%6.4f") differs from rag-eval's default output. It exits 1 when a value
differs by more than 1e-12 or prints differently, or when the two evaluate
different queries.

With --pytrec-only it only parses and evaluates with pytrec_eval, so that a
benchmark tool can time it:

    hyperfine '/tmp/pytrec/bin/python scripts/bench_trec.py --pytrec-only Q R' \\
              '/tmp/rag-eval trec -q -m map ... Q R'
"""

import argparse
import math
import subprocess
import sys
import time

MEASURES = [
    "num_ret", "num_rel", "num_rel_ret", "map", "recip_rank", "Rprec",
    "P.5,10,20", "recall.5,10,100", "ndcg_cut.5,10,20", "success.1,5,10",
]
TOLERANCE = 1e-12


# Values trec_eval prints only on the "all" line, or as text: compared on
# the "all" line (gm_*), or not at all (runid, relstring).
SUMMARY_ONLY = {"num_q", "gm_map", "gm_bpref"}
TEXT = {"runid", "relstring"}


def run_pytrec(qrels_path, run_path, level=1):
    import pytrec_eval

    t0 = time.perf_counter()
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    t1 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, set(MEASURES), relevance_level=level)
    values = evaluator.evaluate(run)
    t2 = time.perf_counter()
    return values, t1 - t0, t2 - t1


def rag_eval_args(binary, qrels_path, run_path, decimals=None, level=1):
    args = [binary, "trec", "-q", "-l", str(level)]
    for m in MEASURES:
        args += ["-m", m]
    if decimals is not None:
        args += ["--decimals", str(decimals)]
    return args + [qrels_path, run_path]


def run_rag_eval(binary, qrels_path, run_path, decimals=None, level=1):
    t0 = time.perf_counter()
    out = subprocess.run(rag_eval_args(binary, qrels_path, run_path, decimals, level),
                         check=True, capture_output=True, text=True).stdout
    elapsed = time.perf_counter() - t0
    values, text = {}, {}
    for line in out.splitlines():
        name, qid, value = line.split("\t")
        name = name.rstrip()
        if name in TEXT:
            continue
        values.setdefault(qid, {})[name] = float(value)
        text.setdefault(qid, {})[name] = value
    return values, text, elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("qrels")
    ap.add_argument("run")
    ap.add_argument("--rag-eval", default="/tmp/rag-eval", help="rag-eval binary")
    ap.add_argument("-l", "--level", type=int, default=1,
                    help="relevance level (trec_eval -l) for both tools")
    ap.add_argument("--pytrec-only", action="store_true",
                    help="only parse and evaluate with pytrec_eval (for timing)")
    ap.add_argument("--measures", default=";".join(MEASURES),
                    help="';'-separated -m arguments for both tools (default: the eleven of the "
                         "first benchmark), e.g. all_trec")
    a = ap.parse_args()
    MEASURES[:] = a.measures.split(";")

    ref, t_parse, t_eval = run_pytrec(a.qrels, a.run, a.level)
    if a.pytrec_only:
        return 0
    print(f"pytrec_eval: parse {t_parse:.3f}s + evaluate {t_eval:.3f}s = {t_parse + t_eval:.3f}s "
          f"({len(ref)} queries)")

    full, _, _ = run_rag_eval(a.rag_eval, a.qrels, a.run, decimals=17, level=a.level)
    _, text, t_ours = run_rag_eval(a.rag_eval, a.qrels, a.run, level=a.level)
    print(f"rag-eval trec -q (process wall clock, parse + evaluate + print): {t_ours:.3f}s")

    ok = True
    ours_q = set(full) - {"all"}
    if ours_q != set(ref):
        print(f"FAIL: evaluated queries differ: {len(ours_q - set(ref))} only in rag-eval, "
              f"{len(set(ref) - ours_q)} only in pytrec_eval")
        ok = False
    names = sorted({n for q in ref.values() for n in q} - TEXT)
    print(f"{'measure':<14} {'max |diff|':>12} {'printed differently':>20}")
    for name in names:
        max_diff, misprinted = 0.0, 0
        for qid in sorted(ours_q & set(ref)):
            if name in SUMMARY_ONLY:
                break
            want = ref[qid][name]
            got = full[qid].get(name)
            if got is None:
                misprinted += 1
                continue
            max_diff = max(max_diff, abs(got - want))
            want_text = f"{int(want)}" if name.startswith("num_") else f"{want:6.4f}"
            if text[qid][name] != want_text:
                misprinted += 1
        flag = "" if max_diff <= TOLERANCE and misprinted == 0 else "  FAIL"
        ok = ok and not flag
        print(f"{name:<14} {max_diff:12.3g} {misprinted:20d}{flag}")

    # The "all" line: trec_eval sums per-query values in qid byte order.
    for name in names:
        total = 0.0
        for qid in sorted(ref):
            total += ref[qid][name]
        want = total if name.startswith("num_") else total / len(ref)
        if name == "num_q":
            want = len(ref)
        elif name.startswith("gm_"):
            want = math.exp(want)
        got = full["all"][name]
        if abs(got - want) > TOLERANCE:
            print(f"FAIL: all {name}: rag-eval {got!r}, pytrec_eval mean {want!r}")
            ok = False
    print("OK: identical values" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
