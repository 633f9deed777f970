#!/usr/bin/env python3
"""The scale benchmark's table: p50/p99 per endpoint at both sizes and large ÷ small.

    report.py RESULTS.tsv BENCHMARKS.md [--no-write]

Prints one Markdown table per engine and, unless --no-write, puts it into BENCHMARKS.md
between `<!-- scale:ENGINE:begin -->` and `<!-- scale:ENGINE:end -->` (appended to the
"Scale" section, made if missing).
"""

import csv
import sys
from datetime import datetime, timezone

TARGET = 2.0


def tables(path):
    rows = {}
    order = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            key = (r["engine"], r["endpoint"])
            if key not in rows:
                order.append(key)
                rows[key] = {}
            rows[key][r["size"]] = (float(r["p50_ms"]), float(r["p99_ms"]))
    out = {}
    for engine in dict.fromkeys(e for e, _ in order):
        lines = [
            f"Measured {datetime.now(timezone.utc):%Y-%m-%d} (`bash bench/scale.sh {engine}`), "
            "one request at a time, milliseconds on the client.",
            "",
            "| endpoint | small p50 | small p99 | large p50 | large p99 | large ÷ small (p50) |",
            "|---|---|---|---|---|---|",
        ]
        for e, endpoint in order:
            if e != engine:
                continue
            sizes = rows[(e, endpoint)]
            small, large = sizes.get("small"), sizes.get("large")
            cells = [f"{v:.2f}" for v in (small or (float("nan"),) * 2)]
            cells += [f"{v:.2f}" for v in (large or (float("nan"),) * 2)]
            if small and large and small[0] > 0:
                ratio = large[0] / small[0]
                flag = "" if ratio <= TARGET else " ✗"
                cells.append(f"{ratio:.2f}{flag}")
            else:
                cells.append("–")
            lines.append(f"| `{endpoint}` | " + " | ".join(cells) + " |")
        out[engine] = "\n".join(lines)
    return out


def write(doc_path, engine, table):
    begin, end = f"<!-- scale:{engine}:begin -->", f"<!-- scale:{engine}:end -->"
    with open(doc_path) as f:
        doc = f.read()
    block = f"{begin}\n{table}\n{end}"
    if begin in doc and end in doc:
        doc = doc[: doc.index(begin)] + block + doc[doc.index(end) + len(end) :]
    else:
        heading = "## Scale: the same cost at a million players"
        if heading not in doc:
            doc = doc.rstrip("\n") + f"\n\n{heading}\n"
        doc = doc.rstrip("\n") + f"\n\n### {engine}\n\n{block}\n"
    with open(doc_path, "w") as f:
        f.write(doc)


def main():
    results, doc = sys.argv[1], sys.argv[2]
    for engine, table in tables(results).items():
        print(f"\n{engine}\n\n{table}\n")
        if "--no-write" not in sys.argv[3:]:
            write(doc, engine, table)


if __name__ == "__main__":
    main()
