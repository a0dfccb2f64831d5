"""The benchmark's JSON result as docs/benchmarks.md and as a few summary lines."""

from __future__ import annotations

from .report_notes import NOTES
from .targets import TARGETS, _full_corpus, _met


def _f(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def _rate(value: float) -> str:
    return f"{value:,.0f}"


def _mmm(s: dict, fmt=_f) -> tuple[str, str, str]:
    return fmt(s["min"]), fmt(s["median"]), fmt(s["max"])


def _target_rows(r: dict) -> list[str]:
    rows = ["| target | measured | goal | met |", "|---|---|---|---|"]
    for label, read, op, goal, target in TARGETS:
        try:
            value = read(r)
        except KeyError:
            continue
        label = f"{label} (issue 14, target {target})" if target else label
        rows.append(f"| {label} | {_f(value)} | {op} {goal:g} | {'yes' if _met(value, op, goal) else '**no**'} |")
    return rows


def _compile_rows(c: dict) -> list[str]:
    b = c["breakdown"]
    rows = [
        f"Measured {c.get('date', 'with the run')}. Each command in a fresh process, {c['compile']['runs']} run(s), over {c['pipelines']:,} different pipelines of "
        f"{c['steps']} steps (`bench/synthetic.py`). CPU seconds include the worker processes. Load average (1 min) "
        f"{_f(c['load_average_start'][0])} before, {_f(c['load_average_end'][0])} after: on two cores, a load above 2 "
        "stretches the wall clock by about load ÷ 2.",
        "",
        "| command | wall s min | median | max | CPU s min | median | max |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, label in (
        ("compile", f"`pipec compile` of {c['pipelines']:,}, no cache"),
        ("check", f"`pipec check` of the same {c['pipelines']:,}, unchanged (cache filled by a compile)"),
        ("one", "`pipec compile` of one pipeline, no cache"),
    ):
        m = c[key]
        rows.append(f"| {label} | " + " | ".join(_mmm(m["wall_s"])) + " | " + " | ".join(_mmm(m["cpu_s"])) + " |")
    rows += [
        "",
        f"One warm process over {b['pipelines']} of them: validate (load, JSON Schema, build) "
        f"{_f(b['validate_cpu_ms'], 1)} ms CPU per pipeline, generate (lower, render, lay out) {_f(b['generate_cpu_ms'], 1)} ms.",
        "",
    ]
    return rows


def _variant_rows(t: dict, labels: dict) -> list[str]:
    rows = []
    for name, label in labels.items():
        cpu = sorted(run["cpu_s"] for run in t["runs"][name])[len(t["runs"][name]) // 2]
        n = t["records"]
        suffix = " — fewer records: a prefix of the others'" if n[name] != n["generated"] else ""
        rows.append(
            f"| {label}{suffix} | {n[name]:,} | "
            + " | ".join(_mmm(t["records_per_s"][name], _rate))
            + f" | {_f(cpu * 1e6 / n[name], 1)} |"
        )
    return rows


def _structs_section(t: dict, eq: dict) -> list[str]:
    sh = t["structs_generated_vs_handwritten"]
    labels = {
        "structs_generated": "compiled job",
        "structs_handwritten": "hand-written native PySpark (`bench/handwritten_structs.py`)",
    }
    return [
        "## Throughput: bench/structs.yaml",
        "",
        "Five struct edits (`MaskField`, `Cast`, `InsertField`, `Flatten`, `ReplaceField`) over a flat JSON value of 40 "
        "fields (one a three-field struct; about 700 bytes; `bench/generate.py`, `struct_records`), where building the "
        "value once per step would dominate; the compiled job builds it once for the five (`compiler/lower/fusion.py`). "
        "Timed in the same rounds as the chain above.",
        "",
        "| variant | records | records/s min | median | max | CPU s per 1M records (median) |",
        "|---|---|---|---|---|---|",
        *_variant_rows(t, labels),
        "",
        "| ratio (per repetition) | min | median | max | median by CPU time |",
        "|---|---|---|---|---|",
        "| generated ÷ hand-written | "
        + " | ".join(_mmm(sh["wall"], lambda v: _f(v, 3)))
        + f" | {_f(sh['cpu']['median'], 3)} |",
        "",
        f"Outputs compared as for the chain: {eq.get('structs_prefix_rows_out', 0):,} rows equal both ways on the prefix; "
        f"{eq.get('structs_full_rows_out', eq.get('structs_prefix_rows_out', 0)):,} rows with the same fingerprint over all. "
        "Its plans are in the tables above (`structs_generated`, `structs_handwritten`).",
    ]


def markdown(r: dict) -> str:
    m, s, t = r["machine"], r["settings"], r["throughput"]
    gh, gu = t["generated_vs_handwritten"], t["generated_vs_udf"]
    gf = t["generated_filter_first_vs_handwritten"]
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
        f"- Python {m['python']}, {m['java']}, PySpark {m['pyspark']}, "
        + (f"ruff {m['ruff']}" if "ruff" in m else f"black {m['black']}"),
        f"- One SparkSession, `local[2]`, `spark.sql.shuffle.partitions=2`, driver memory {s['driver_memory']}; "
        "the job's own settings (UTC, ANSI) for every variant",
        f"- Load average (1/5/15 min) at start {', '.join(_f(x) for x in m['load_average_start'])}, at end "
        f"{', '.join(_f(x) for x in m['load_average_end'])}: the host ran other work too, so wall-clock figures carry "
        "noise; the CPU-time columns (CPU seconds of the Spark JVM, and of its Python workers for the UDF) are steadier.",
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
        "generated_filter_first": "compiled job, the same chain with the filter moved first",
    }
    out += _variant_rows(t, labels)
    out += [
        "",
        "| ratio (per repetition) | min | median | max | median by CPU time |",
        "|---|---|---|---|---|",
        "| generated ÷ hand-written | "
        + " | ".join(_mmm(gh["wall"], lambda v: _f(v, 3)))
        + f" | {_f(gh['cpu']['median'], 3)} |",
        "| generated ÷ UDF (records/s; the UDF ran over fewer records) | "
        + " | ".join(_mmm(gu["wall"], lambda v: _f(v, 1)))
        + f" | {_f(gu['cpu']['median'], 1)} |",
        "| generated with the filter first ÷ hand-written | "
        + " | ".join(_mmm(gf["wall"], lambda v: _f(v, 3)))
        + f" | {_f(gf['cpu']['median'], 3)} |",
        "",
    ]
    eq = r["equality"]
    out += [
        f"Before timing, outputs were compared: over the first {n['udf']:,} records every variant's output equals the "
        f"compiled job's row for row (`exceptAll` both ways: {eq['prefix_rows_out']:,} rows out); over all "
        f"{n['generated']:,} records the native variants' outputs have the same row count "
        f"({eq.get('full_rows_out', eq['prefix_rows_out']):,}) and the same order-independent sums of two row hashes "
        "(`xxhash64`, `hash`).",
        "",
        "Optimized plans (above the cached input):",
        "",
        "| plan | projections | filters | `from_json` | `to_json` | regex | `raise_error` | characters |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, p in r["plans"].items():
        out.append(
            f"| {name} | {p['projects']} | {p['filters']} | {p['from_json']} | {p['to_json']} | {p['regex']} | {p['raise_error']} | {p['chars']:,} |"
        )
    out += [
        "",
        "Whole-stage codegen: the largest generated method of each stage, in bytecode bytes. HotSpot leaves a method "
        "over 8,000 bytes to the interpreter (unless the JVM runs with `-XX:-DontCompileHugeMethods`), so such a stage "
        "runs several times slower.",
        "",
        "| plan | stages: largest method (bytes) |",
        "|---|---|",
        *(
            f"| {name} | {', '.join(str(st['max_method_bytes']) for st in stages) or 'none: every projection holds a lambda (no codegen)'} |"
            for name, stages in r["codegen"].items()
        ),
    ]
    if "structs_generated_vs_handwritten" in t:
        out += ["", *_structs_section(t, eq)]
    out += ["", "## Compiler", ""]
    if "compile_speed" in r:
        out += _compile_rows(r["compile_speed"])
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
        "| build the DataFrame (`transform`; PySpark analyses each step as it is added), s | "
        + " | ".join(_mmm(a["analyse_s"]))
        + " |",
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
            *(
                f"| {g['steps']} | {_f(g['analyse_optimise_s'])} | {g['projects']} | {g['filters']} | {g['chars']:,} |"
                for g in r["growth"]
            ),
            "",
        ]
    from .report_streaming import avro_confluent_section, changelog_section, files_dead_letters_section

    if "changelog_state" in r:
        out += changelog_section(r["changelog_state"])
    if "files_dead_letters" in r:
        out += files_dead_letters_section(r["files_dead_letters"])
    if "avro_confluent" in r:
        out += avro_confluent_section(r["avro_confluent"])
    if "latency" in r:
        from .report_latency import latency_section

        out += latency_section(r["latency"])
    if "connect_peer" in r:
        from .report_peer import connect_peer_section

        out += connect_peer_section(r["connect_peer"])
    if "chain_recheck" in r:
        from .report_peer import chain_recheck_section

        out += chain_recheck_section(r["chain_recheck"], r)
    if "structs_ab" in r:
        from .structs_ab import section

        out += section(r["structs_ab"])
    if "chain_what_if" in r:
        from .report_peer import chain_what_if_section

        out += chain_what_if_section(r["chain_what_if"])
    if "tables" in r:
        from .report_tables import tables_section

        out += tables_section(r["tables"])
    return "\n".join(out) + "\n" + NOTES


def compile_summary(c: dict) -> tuple[list[str], bool]:
    """The compile figures as printed, and whether target 2 is met."""
    r = {"compile_speed": c}
    lines = []
    for key, label in (
        ("compile", f"compile {c['pipelines']}"),
        ("check", f"check {c['pipelines']}"),
        ("one", "compile 1"),
    ):
        w, u = c[key]["wall_s"], c[key]["cpu_s"]
        lines.append(
            f"{label}: median {w['median']:.2f} s wall (min {w['min']:.2f}, max {w['max']:.2f}), "
            f"{u['median']:.2f} s CPU (min {u['min']:.2f}, max {u['max']:.2f}); load {c['load_average_start'][0]:.1f}"
        )
    met = _full_corpus(c)
    for _label, read, op, goal, target in TARGETS:
        if target == 2:
            met = met and _met(read(r), op, goal)
    lines.append(
        f"issue 14 target 2 (compile <= 20 s, check <= 5 s, one <= 0.3 s, wall medians): {'met' if met else 'MISSED'}"
    )
    return lines, met


def summary_lines(r: dict) -> list[str]:
    t = r["throughput"]
    lines = [f"== pipec benchmark ({r['mode']}, {r['wall_s']:.0f} s) =="]
    for name, s in t["records_per_s"].items():
        lines.append(
            f"{name:>22}: {s['median']:>12,.0f} records/s (min {s['min']:,.0f}, max {s['max']:,.0f}; {t['records'][name]:,} records)"
        )
    for key, label in (
        ("generated_vs_handwritten", "generated ÷ hand-written"),
        ("generated_vs_udf", "generated ÷ UDF"),
        ("generated_filter_first_vs_handwritten", "generated (filter first) ÷ hand-written"),
        ("structs_generated_vs_handwritten", "structs: generated ÷ hand-written"),
    ):
        if key not in t:
            continue
        w, c = t[key]["wall"], t[key]["cpu"]
        lines.append(
            f"{label}: median {w['median']:.3f} (min {w['min']:.3f}, max {w['max']:.3f}); "
            f"by CPU time {c['median']:.3f} (min {c['min']:.3f}, max {c['max']:.3f})"
        )
    if "compile_speed" in r:
        lines += compile_summary(r["compile_speed"])[0]
    cv = r["cold_validate"]
    lines.append(f"cold validate: median {cv['wall_s']['median']:.3f} s wall, {cv['cpu_s']['median']:.3f} s CPU")
    a = r["analysis"]
    lines.append(
        f"{a['steps']}-step chain: analyse + optimise median {a['analyse_optimise_s']['median']:.2f} s (physical {a['physical_s']['median']:.2f} s)"
    )
    if "changelog_state" in r:
        lines.append(f"changelog state: ratio {r['changelog_state']['ratio']:.2f} (1M ÷ 1k keys, mean wall)")
    from .report_latency import LATENCY_MODES

    for name in LATENCY_MODES:
        if "p99_s" in r.get("latency", {}).get(name, {}):
            lines.append(f"latency {name}: p99 {r['latency'][name]['p99_s']:.3f} s")
    lines += [row for row in _target_rows(r)[2:]]
    return lines
