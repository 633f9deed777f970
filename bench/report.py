#!/usr/bin/env python3
"""Turns a bench/run.sh result directory into the Markdown tables of BENCHMARKS.md.

    python3 bench/report.py RUN_DIR [--write BENCHMARKS.md]

Prints one block per engine measured in RUN_DIR; with --write, replaces that engine's
block (between its `<!-- results:ENGINE:start -->` and `<!-- results:ENGINE:end -->`
markers) in the given file and leaves everything else as it is.
"""

import csv
import re
import sys
from pathlib import Path

RSS_LIMIT_MIB = 64
# endpoint key, what is requested, its baseline, the ratio target, p99 targets at 4
# connections in ms per engine (None: no latency target)
TARGETS = [
    ("health", "GET /health", "json", 0.8, {"sqlite": 5, "postgres": 5}),
    ("summary", "GET /v1/progress/summary", "read", 0.5, {"sqlite": 10, "postgres": 10}),
    ("answer", "POST /v1/challenges/answer", "write", 0.5, {"sqlite": 20, "postgres": 15}),
    (
        "answer_nomem",
        "POST /v1/challenges/answer, `ANSWER_MEMORY=false` (round-robin)",
        "write",
        0.5,
        {"sqlite": 20, "postgres": 15},
    ),
    ("leaderboards", "GET /v1/leaderboards", "read", 0.4, {"sqlite": 10, "postgres": 10}),
    ("me", "GET /v1/leaderboards/me", "read", 0.3, {"sqlite": 15, "postgres": 15}),
    ("guest", "POST /v1/auth/guest (new device)", "write", 0.5, None),
]
BASELINES = [("json", "GET /json"), ("read", "GET /read"), ("write", "POST /write")]
ENGINE_NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


def load(run_dir):
    rows = {}
    with open(run_dir / "results.tsv") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows[(r["engine"], r["endpoint"], int(r["conns"]))] = r
    env = {}
    for line in (run_dir / "environment.txt").read_text().splitlines():
        if ": " in line:
            k, v = line.split(": ", 1)
            env[k] = v
    return rows, env


def num(r, key):
    try:
        return float(r[key])
    except (KeyError, TypeError, ValueError):
        return None


def non2xx(rs):
    total = 0
    for r in rs:
        hook = r.get("non2xx_hook", "NA")
        total += int(hook) if hook not in ("", "NA") else int(r.get("non2xx_wrk") or 0)
    return total


def sock_errors(rs):
    out = []
    for r in rs:
        s = r.get("sock_err", "0")
        if s not in ("", "0"):
            out.append(f"@{r['conns']}: {s}")
    return "; ".join(out)


def fmt_lat(r):
    return f"{float(r['p50_ms']):.2f} / {float(r['p99_ms']):.2f}" if r else "–"


def fmt_cpu(r):
    """CPU µs per request: the server process, the PostgreSQL backends serving it (if
    measured), and the whole machine (wrk, database and anything else running)."""
    if not r:
        return "–"
    parts = [f"{float(r['server_cpu_us_per_req']):.0f}"]
    db = r.get("db_cpu_us_per_req")
    if db not in (None, "", "NA"):
        parts.append(f"{float(db):.0f}")
    parts.append(f"{float(r['machine_cpu_us_per_req']):.0f}")
    return " / ".join(parts)


def fmt_rps(r):
    return f"{float(r['req_s']):,.0f}" if r else "–"


def block(engine, rows, env):
    name = ENGINE_NAMES[engine]
    get = lambda ep, c: rows.get((engine, ep, c))  # noqa: E731
    conns = sorted({k[2] for k in rows if k[0] == engine}, reverse=True)
    hi, lo = (conns[0], conns[-1]) if conns else (64, 4)
    cpu_head = "process / PG backends / machine" if engine == "postgres" else "process / machine"
    out = []
    out.append(f"### {name}")
    out.append("")
    out.append(
        f"Run {env.get('date', '?')} (`{env.get('command', 'bash bench/run.sh').strip()}`), "
        f"{env.get('cpus', '?')} cores ({env.get('cpu', '?')}), {env.get('mem_total_mib', '?')} MiB, "
        f"kernel {env.get('kernel', '?')}, PostgreSQL {env.get('postgres', '?')}, {env.get('wrk', '?')}, "
        f"{env.get('rustc', '?')}; tree at {env.get('git', '?')}. "
        f"Load average (1/5/15 min) at the start of this engine's part: {env.get('load_start_' + engine, '?')}; "
        f"at its end: {env.get('load_end_' + engine, '?')}. "
        f"wrk -t{env.get('wrk_threads', '2')}, {env.get('warm_s', '?')} s warm-up + "
        f"{env.get('run_s', '?')} s measured per row; {env.get('readers', '?')} seeded readers."
    )
    out.append("")
    out.append(
        f"| endpoint | req/s @{hi} | p50 / p99 ms @{hi} | req/s @{lo} | p50 / p99 ms @{lo} | non-2xx "
        f"| peak RSS MiB | CPU µs/req {cpu_head} @{hi} | baseline req/s @{hi} | ratio (target) "
        f"| p99 @{lo} (target) | result |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
    peak = 0.0
    for key, label, base, ratio_target, p99_targets in TARGETS:
        r_hi, r_lo = get(key, hi), get(key, lo)
        b_hi = get(base, hi)
        present = [r for r in (r_hi, r_lo) if r]
        if not present:
            continue
        fails = []
        bad = non2xx(present)
        gone = sum(int(r.get("exhausted") or 0) for r in present)
        if bad:
            fails.append("non-2xx")
        rss = max(num(r, "rss_mib") or 0 for r in present)
        peak = max(peak, rss)
        if rss > RSS_LIMIT_MIB:
            fails.append("RSS")
        ratio_cell = "–"
        if r_hi and b_hi:
            ratio = float(r_hi["req_s"]) / float(b_hi["req_s"])
            ok = ratio >= ratio_target
            ratio_cell = f"{ratio:.2f} (≥ {ratio_target}) {'PASS' if ok else 'FAIL'}"
            if not ok:
                fails.append("ratio")
        p99_cell = "–"
        if p99_targets and r_lo:
            t = p99_targets[engine]
            p99 = float(r_lo["p99_ms"])
            ok = p99 <= t
            p99_cell = f"{p99:.2f} (≤ {t}) {'PASS' if ok else 'FAIL'}"
            if not ok:
                fails.append("p99")
        cpu = fmt_cpu(r_hi)
        note = ""
        if gone:
            note += f" ({gone} answer lines replayed: seed more)"
        se = sock_errors(present)
        if se:
            note += f" (socket errors {se})"
        result = "PASS" if not fails else "FAIL: " + ", ".join(fails)
        out.append(
            f"| `{label}` | {fmt_rps(r_hi)} | {fmt_lat(r_hi)} | {fmt_rps(r_lo)} | {fmt_lat(r_lo)} "
            f"| {bad}{note} | {rss:.1f} | {cpu} | {fmt_rps(b_hi)} (`/{base}`) | {ratio_cell} | {p99_cell} | {result} |"
        )
    seed_rss = env.get("rss_after_seed_mib_" + engine)
    if seed_rss:
        peak = max(peak, float(seed_rss))
    out.append("")
    out.append(
        f"Peak RSS of the `player-api` process over the whole run (start, seeding, every "
        f"endpoint): **{peak:.1f} MiB** (≤ {RSS_LIMIT_MIB} MiB: "
        f"{'PASS' if peak <= RSS_LIMIT_MIB else 'FAIL'}). The per-endpoint column is the peak "
        f"during that endpoint's runs (VmHWM reset before them)."
    )
    judged = []
    for key, label in (("answer", "answer"), ("answer_nomem", "without memory")):
        for conns in (hi, lo):
            counts = env.get(f"judged_{engine}_{key}_c{conns}")
            if counts:
                memory, read = (int(x) for x in counts.split())
                total = memory + read
                share = f"{memory / total:.0%}" if total else "–"
                judged.append(f"{label} @{conns}: {memory:,} of {total:,} ({share})")
    if judged:
        out.append("")
        out.append(
            "Answers judged from memory in the measured runs (the service's "
            "`answers_judged_total`; the rest were judged on a read): " + "; ".join(judged) + "."
        )
    out.append("")
    out.append(f"The reference, axbench on {name}, measured in the same run:")
    out.append("")
    out.append(
        f"| axbench | req/s @{hi} | p50 / p99 ms @{hi} | req/s @{lo} | p50 / p99 ms @{lo} | non-2xx "
        f"| CPU µs/req {cpu_head} @{hi} |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|")
    for key, label in BASELINES:
        r_hi, r_lo = get(key, hi), get(key, lo)
        present = [r for r in (r_hi, r_lo) if r]
        if not present:
            continue
        cpu = fmt_cpu(r_hi)
        out.append(
            f"| `{label}` | {fmt_rps(r_hi)} | {fmt_lat(r_hi)} | {fmt_rps(r_lo)} | {fmt_lat(r_lo)} "
            f"| {non2xx(present)} | {cpu} |"
        )
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    run_dir = Path(sys.argv[1])
    rows, env = load(run_dir)
    engines = [e for e in ("sqlite", "postgres") if any(k[0] == e for k in rows)]
    blocks = {e: block(e, rows, env) for e in engines}
    for e in engines:
        print(blocks[e])
        print()
    if "--write" in sys.argv:
        target = Path(sys.argv[sys.argv.index("--write") + 1])
        text = target.read_text() if target.exists() else ""
        for e in engines:
            start, end = f"<!-- results:{e}:start -->", f"<!-- results:{e}:end -->"
            new = f"{start}\n{blocks[e]}\n{end}"
            pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
            if pattern.search(text):
                text = pattern.sub(lambda _m: new, text)
            else:
                text = text.rstrip("\n") + "\n\n" + new + "\n"
        target.write_text(text)
        print(f"updated {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
