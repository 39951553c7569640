#!/usr/bin/env python3
"""Check a rag-eval trec-compare JSON report against scipy and ranx.

    python3 scripts/compare_check.py cmp.json

Reads the qrels and runs the report names (inputs.qrels, sides[].run),
recomputes every run's per-query values with pytrec_eval (trec_eval's C core)
and, for every pair and measure of the report:

  * the means and win/tie/loss over the queries both runs have;
  * the paired sign-flip randomization p-value with
    scipy.stats.permutation_test(permutation_type="samples", 100,000
    resamples) and ranx.compare(stat_test="fisher", 10,000 permutations),
    the Holm adjustment of scipy's p-values, and the paired t-test p
    (tTestP) against scipy.stats.ttest_rel's;
  * the 95% percentile bootstrap interval with scipy.stats.bootstrap.

The Monte Carlo p-values cannot agree exactly, since they come from
different random numbers. The script prints each difference in standard
errors, sqrt(p(1-p)/N) combined. It exits 1 if a mean, win/tie/loss, count
or t-test p differs beyond the report's 6 decimals. It also exits 1 if a
p-value differs by more than 4 standard errors, plus 0.0005 at the floor.
Needs: pip install scipy ranx pytrec-eval-terrier
"""
import json
import math
import sys

import numpy as np
import pytrec_eval
import scipy.stats as st
from ranx import Qrels, Run, compare

RANX = {"map": "map", "recip_rank": "mrr"}


def ranx_name(m):
    for prefix, name in (("P_", "precision@"), ("recall_", "recall@"), ("ndcg_cut_", "ndcg@")):
        if m.startswith(prefix):
            return name + m[len(prefix):]
    return RANX.get(m)


def read_qrels(path):
    q = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            qid, _, doc, rel = line.split()[:4]
            q.setdefault(qid, {})[doc] = int(rel)
    return q


def read_run(path):
    r = {}
    with open(path) as f:
        for line in f:
            if line.lstrip().startswith("#") or not line.strip():
                continue
            qid, _, doc, _, score = line.split()[:5]
            r.setdefault(qid, {})[doc] = float(score)
    return r


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, run = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = run
    return out


def main():
    rep = json.load(open(sys.argv[1]))
    inp = rep["inputs"]
    if inp["relLevel"] != 1 or inp["maxRetrieved"] is not None or inp["complete"]:
        sys.exit("compare_check: only reports without -c, -l and -M are checked")
    qrels = read_qrels(inp["qrels"])
    names = [s["name"] for s in rep["sides"]]
    runs = {s["name"]: read_run(s["run"]) for s in rep["sides"]}
    measures = [m["name"] for m in rep["metrics"]]
    ev = pytrec_eval.RelevanceEvaluator(qrels, set(inp["measures"]))
    vals = {n: ev.evaluate(runs[n]) for n in names}

    rq = Qrels.from_file(inp["qrels"], kind="trec")
    rruns = []
    for s in rep["sides"]:
        r = Run.from_file(s["run"], kind="trec")
        r.name = s["name"]
        rruns.append(r)
    rmetrics = [ranx_name(m) for m in measures if ranx_name(m)]
    rrep = compare(rq, rruns, metrics=rmetrics, stat_test="fisher", n_permutations=10_000, max_p=0.05, random_seed=42)

    bad = 0
    rows, sp = [], []
    for p in rep["pairs"]:
        a, b = p["a"], p["b"]
        qids = sorted(set(vals[a]) & set(vals[b]))
        for m in p["metrics"]:
            x = np.array([vals[a][q][m["name"]] for q in qids])
            y = np.array([vals[b][q][m["name"]] for q in qids])
            d = x - y
            same = (abs(x.mean() - m["a"]) < 1e-6 and abs(y.mean() - m["b"]) < 1e-6 and len(d) == m["pairs"]
                    and (d > 0).sum() == m["wins"] and (d == 0).sum() == m["ties"] and (d < 0).sum() == m["losses"])
            if not same:
                print(f"MISMATCH {a} vs {b} {m['name']}: means/counts differ from pytrec_eval's")
                bad += 1
            ps = st.permutation_test((x, y), lambda u, v, axis: np.mean(u - v, axis=axis), vectorized=True,
                                     permutation_type="samples", n_resamples=100_000, random_state=1).pvalue
            ci = st.bootstrap((d,), np.mean, method="percentile", n_resamples=10_000, random_state=1).confidence_interval
            tp = st.ttest_rel(x, y).pvalue if d.any() else 1.0
            if m["tTestP"] is None or abs(m["tTestP"] - tp) > 1e-6:
                print(f"MISMATCH {a} vs {b} {m['name']}: t-test p {m['tTestP']}, scipy {tp}")
                bad += 1
            rp = None
            if ranx_name(m["name"]):
                rp = rrep.comparisons[a, b][ranx_name(m["name"])]["p_value"]
            sp.append(ps)
            rows.append((a, b, m, ps, rp, tp, ci))
    adj = holm(sp)
    print(f"{'pair':<18} {'measure':<12} {'Δ':>9} {'CI (ours)':>21} {'CI (scipy)':>21} {'p':>8} {'scipy p':>8} {'z':>5} {'ranx p':>8} {'z':>5} {'p adj.':>8} {'scipy adj.':>10} {'t-test p':>9}")
    for (a, b, m, ps, rp, tp, ci), pa in zip(rows, adj):
        p = m["pValue"]

        def z(ref, n_ref):
            se = math.sqrt(max(p * (1 - p), 1e-4 * (1 - 1e-4)) / 10_001 + max(ref * (1 - ref), 1e-5) / n_ref)
            return (p - ref) / se

        zs = z(ps, 100_000)
        zr = z(rp, 10_000) if rp is not None else float("nan")
        for zz in (zs, zr):
            if not math.isnan(zz) and abs(zz) > 4 and abs(p - (ps if zz is zs else rp)) > 0.0005:
                bad += 1
        ours = f"[{m['ci95'][0]:.4f}, {m['ci95'][1]:.4f}]"
        theirs = f"[{ci.low:.4f}, {ci.high:.4f}]"
        rps = f"{rp:8.4f}" if rp is not None else f"{'—':>8}"
        print(f"{a + ' vs ' + b:<18} {m['name']:<12} {m['delta']:>+9.4f} {ours:>21} {theirs:>21} {p:8.4f} {ps:8.4f} {zs:5.1f} {rps} {zr:5.1f} {m['pAdjusted']:8.4f} {pa:10.4f} {tp:9.2e}")
    print("agreement:", "ok" if bad == 0 else f"{bad} problems")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
