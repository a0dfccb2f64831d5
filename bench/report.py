"""The benchmark's JSON result as docs/benchmarks.md and as a few summary lines."""

from __future__ import annotations

TARGETS = (  # (label, how to read the figure from the result, comparison, target)
    ("generated ÷ hand-written throughput (median)", lambda r: r["throughput"]["generated_vs_handwritten"]["wall"]["median"], ">=", 0.95),
    ("generated ÷ UDF throughput (median)", lambda r: r["throughput"]["generated_vs_udf"]["wall"]["median"], ">=", 10.0),
    ("compile rate, pipelines/s", lambda r: r["compile"]["pipelines_per_s"], ">=", 50.0),
    ("cold `pipec validate`, s (median)", lambda r: r["cold_validate"]["wall_s"]["median"], "<=", 0.3),
    ("50-step chain analysed and optimised, s (median)", lambda r: r["analysis"]["analyse_optimise_s"]["median"], "<", 2.0),
)

NOTES = """\
## What the profiling found, and what changed

- **Filters copied the whole chain into themselves.** Spark pushes a filter below the projections under it and
  replaces each column the condition reads by that column's expression. A `Filter` step placed after steps that
  rebuild the columns its predicate reads (here `HasHeaderKey` after `HeaderFrom`, which reads the value) got every
  earlier step's struct rebuild inlined into every field access of the next: the plan grew exponentially with the
  chain. Measured before the fix: this benchmark's chain (filter last) had a **77 MB optimized plan with `from_json`
  130,422 times**; the synthetic chain went from 28 KB (12 steps) to 328 MB (14 steps), and at 25 steps printing the
  plan ran out of a 1 GiB heap (the 50-step figure could not be measured). Fix (`compiler/lower.py`, `pin`): a filter
  whose condition reads a column an earlier step rebuilt takes its condition from a `__keep` column set together with
  `spark_partition_id()`, which Spark treats as nondeterministic and so never pushes a filter through; the filter
  runs where the chain puts it. Filters that read only what the source produced (the common case: a filter first)
  are still pushed down below the JSON parsing. After the fix the plan grows linearly (see the table above).
- **Compile rate is black's.** `pipec compile` formats every job with black twice (format, then a stability check).
  Black takes over 80% of compile CPU time (the row "black's share" above); without it the compiler is within reach
  of the target. The fix belongs in `compiler/format.py`/`compiler/render.py`: emit black-stable text directly
  (render already knows the structure: one call per line with the arguments indented once black would split them),
  run black only in the test suite to prove the output is already formatted, or at least drop the second (stability)
  pass from `compile` and keep it in the tests. Validation itself (load, JSON Schema, build) costs about 20 ms CPU per
  20-step pipeline: half JSON Schema, a third YAML parsing (`compiler/validate.py`, `compiler/loader.py`).
- **Per-record work the compiled job does that the hand-written one skips** (the gap between them): Kafka's exact
  semantics cost a Java-number regex before each string→double cast (`Cast`, `compiler/transforms/casting.py`), a
  UTF-8 check on the header cast to text, `raise_error` guards for null values (`MaskField`, `HeaderFrom`), one struct
  rebuild per step instead of one at the end, and the filter after the chain (the hand-written job drops test
  records before parsing them).
"""


def _f(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def _mmm(s: dict, fmt=_f) -> tuple[str, str, str]:
    return fmt(s["min"]), fmt(s["median"]), fmt(s["max"])


def _target_rows(r: dict) -> list[str]:
    rows = ["| target | measured | goal | met |", "|---|---|---|---|"]
    for label, read, op, goal in TARGETS:
        try:
            value = read(r)
        except KeyError:
            continue
        met = value >= goal if op == ">=" else value <= goal if op == "<=" else value < goal
        rows.append(f"| {label} | {_f(value)} | {op} {goal:g} | {'yes' if met else '**no**'} |")
    return rows


def markdown(r: dict) -> str:
    m, s, t = r["machine"], r["settings"], r["throughput"]
    rps, gh, gu = t["records_per_s"], t["generated_vs_handwritten"], t["generated_vs_udf"]
    n = t["records"]
    out = [
        "# Benchmarks",
        "",
        f"Written by `scripts/bench` ({r['mode']} run, {r['date']}, {_f(r['wall_s'] / 60, 1)} minutes). Re-run it to "
        "refresh this file; `scripts/bench --quick` (about 200k records, under 2 minutes) prints the same figures "
        "without writing it. Raw figures: `bench/results.json`.",
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cpus']} cores; memory {m['memory_gib']} GiB; {m['os']}",
        f"- Python {m['python']}, {m['java']}, PySpark {m['pyspark']}, black {m['black']}",
        f"- One SparkSession, `local[2]`, `spark.sql.shuffle.partitions=2`, driver memory {s['driver_memory']}; "
        "the job's own settings (UTC, ANSI) for every variant",
        f"- Load average (1/5/15 min) at start {', '.join(_f(x) for x in m['load_average_start'])}, at end "
        f"{', '.join(_f(x) for x in m['load_average_end'])}: the host ran other work too, so wall-clock figures carry "
        "noise; the CPU-time columns (CPU seconds of the Spark JVM and its Python workers) are steadier.",
        "",
        "## Targets",
        "",
        *_target_rows(r),
        "",
        "## Throughput: bench/chain.yaml",
        "",
        "Ten steps (`MaskField`, `Cast`, `InsertField`, `Flatten`, `ReplaceField`, `TimestampConverter`, `RegexRouter`, "
        "`TimestampRouter`, `HeaderFrom`, `Filter`) over Kafka-shaped records (`bench/generate.py`: a nested JSON value "
        "of about 300 bytes, three headers, 1% dropped by the filter), cached in memory, written to Spark's `noop` sink. "
        "Records/s counts input records. The variants alternate in a rotating order over "
        f"{s['reps']} repetitions after {s['warmups']} warm-up round(s).",
        "",
        "| variant | records | records/s min | median | max | CPU s per 1M records (median) |",
        "|---|---|---|---|---|---|",
    ]
    labels = {
        "generated": "compiled job (`transform` of the generated file)",
        "handwritten": "hand-written native PySpark (`bench/handwritten.py`)",
        "udf": "per-record Python UDF (`bench/udf.py`)",
    }
    for name, label in labels.items():
        cpu = sorted(run["cpu_s"] for run in t["runs"][name])[len(t["runs"][name]) // 2]
        suffix = " — fewer records: a prefix of the others'" if n[name] != n["generated"] else ""
        out.append(f"| {label}{suffix} | {n[name]:,} | " + " | ".join(_mmm(rps[name], _rate)) + f" | {_f(cpu * 1e6 / n[name], 1)} |")
    out += [
        "",
        "| ratio (per repetition) | min | median | max | median by CPU time |",
        "|---|---|---|---|---|",
        "| generated ÷ hand-written | " + " | ".join(_mmm(gh["wall"], lambda v: _f(v, 3))) + f" | {_f(gh['cpu']['median'], 3)} |",
        "| generated ÷ UDF (records/s; the UDF ran over fewer records) | " + " | ".join(_mmm(gu["wall"], lambda v: _f(v, 1))) + f" | {_f(gu['cpu']['median'], 1)} |",
        "",
    ]
    eq = r["equality"]
    out += [
        f"Before timing, outputs were compared: over the first {n['udf']:,} records all three are equal row for row "
        f"(`exceptAll` both ways: {eq['prefix_rows_out']:,} rows out); over all {n['generated']:,} records the "
        f"compiled and hand-written outputs have the same row count ({eq.get('full_rows_out', eq['prefix_rows_out']):,}) "
        "and the same order-independent sums of two row hashes (`xxhash64`, `hash`).",
        "",
        "Optimized plans (above the cached input):",
        "",
        "| plan | projections | filters | `from_json` | `to_json` | regex | `raise_error` | characters |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ("generated", "handwritten"):
        p = r["plans"][name]
        out.append(f"| {name} | {p['projects']} | {p['filters']} | {p['from_json']} | {p['to_json']} | {p['regex']} | {p['raise_error']} | {p['chars']:,} |")
    out += ["", "## Compiler", ""]
    if "compile" in r:
        c = r["compile"]
        out += [
            f"Validate and compile {c['pipelines']:,} different pipelines of {c['steps']} steps in one process "
            "(`bench/synthetic.py`; `build_all` then `generate_all`, as `pipec compile` runs them, without writing files).",
            "",
            "| measure | value |",
            "|---|---|",
            f"| compile (validate + lower + render + black), pipelines/s | {_f(c['pipelines_per_s'], 1)} ({_f(c['pipelines_per_cpu_s'], 1)} per CPU second) |",
            f"| validate only (load, JSON Schema, build), pipelines/s | {_f(c['validate_pipelines_per_s'], 1)} ({_f(c['validate_pipelines_per_cpu_s'], 1)} per CPU second) |",
            f"| black's share of compile CPU time | {_f(100 * c['black_share'], 0)}% |",
            f"| compile without black, pipelines per CPU second | {_f(c['without_black_pipelines_per_cpu_s'], 1)} |",
            "",
        ]
    cv = r["cold_validate"]
    a = r["analysis"]
    out += [
        f"Cold `pipec validate bench/chain.yaml` (a fresh process each time, {cv['runs']} runs): wall "
        + " / ".join(_mmm(cv["wall_s"], lambda v: _f(v, 3)))
        + " s (min / median / max), CPU "
        + " / ".join(_mmm(cv["cpu_s"], lambda v: _f(v, 3)))
        + " s.",
        "",
        f"A {a['steps']}-step chain (`bench/synthetic.py`, every transform family, filters included), {a['reps']} runs "
        "(the first one cold):",
        "",
        "| phase | min | median | max |",
        "|---|---|---|---|",
        "| build the DataFrame (`transform`; PySpark analyses each step as it is added), s | " + " | ".join(_mmm(a["analyse_s"])) + " |",
        "| optimise, s | " + " | ".join(_mmm(a["optimise_s"])) + " |",
        "| **analyse + optimise**, s | " + " | ".join(_mmm(a["analyse_optimise_s"])) + " |",
        "| physical planning, s | " + " | ".join(_mmm(a["physical_s"])) + " |",
        "",
    ]
    if r.get("growth"):
        out += [
            "Plan size against chain length (one run each):",
            "",
            "| steps | analyse + optimise, s | projections | filters | optimized plan, characters |",
            "|---|---|---|---|---|",
            *(f"| {g['steps']} | {_f(g['analyse_optimise_s'])} | {g['projects']} | {g['filters']} | {g['chars']:,} |" for g in r["growth"]),
            "",
        ]
    return "\n".join(out) + "\n" + NOTES


def summary_lines(r: dict) -> list[str]:
    t = r["throughput"]
    lines = [f"== pipec benchmark ({r['mode']}, {r['wall_s']:.0f} s) =="]
    for name, s in t["records_per_s"].items():
        lines.append(f"{name:>12}: {s['median']:>12,.0f} records/s (min {s['min']:,.0f}, max {s['max']:,.0f}; {t['records'][name]:,} records)")
    for key, label in (("generated_vs_handwritten", "generated ÷ hand-written"), ("generated_vs_udf", "generated ÷ UDF")):
        w, c = t[key]["wall"], t[key]["cpu"]
        lines.append(f"{label}: median {w['median']:.3f} (min {w['min']:.3f}, max {w['max']:.3f}); by CPU time {c['median']:.3f}")
    if "compile" in r:
        c = r["compile"]
        lines.append(f"compile: {c['pipelines_per_s']:.1f} pipelines/s ({c['pipelines']} x {c['steps']} steps; black {100 * c['black_share']:.0f}% of CPU)")
    cv = r["cold_validate"]
    lines.append(f"cold validate: median {cv['wall_s']['median']:.3f} s wall, {cv['cpu_s']['median']:.3f} s CPU")
    a = r["analysis"]
    lines.append(f"{a['steps']}-step chain: analyse + optimise median {a['analyse_optimise_s']['median']:.2f} s (physical {a['physical_s']['median']:.2f} s)")
    lines += [row for row in _target_rows(r)[2:]]
    return lines
