"""docs/benchmarks.md's section for `scripts/bench tables` (bench/tables.py)."""

from __future__ import annotations

from .report import _f, _mmm

GOALS = {
    "append_hand_over_pipec": (">=", 0.95),
    "upsert_1m_over_1k": ("<=", 3.0),
    "merge_hand_over_pipec": (">=", 0.95),
}
NAMES = {
    "append_pipec": "append: the chain's compiled job into Delta",
    "append_hand": "append: the chain written by hand into Delta",
    "upsert_1m": "upsert: 1,000 changes into 1,000,000 rows (pipec)",
    "upsert_1k": "upsert: 1,000 changes into 1,000 rows (pipec)",
    "merge_hand": "MERGE: 1,000 changes into 1,000,000 rows (hand-written foreachBatch)",
    "upsert_1m_vs": "upsert: 1,000 changes into 1,000,000 rows (pipec at the `--vs` ref)",
}
RATIOS = {
    "append_hand_over_pipec": "append: hand-written time / pipec time",
    "upsert_1m_over_1k": "upsert: into 1,000,000 rows / into 1,000 rows",
    "merge_hand_over_pipec": "MERGE: hand-written time / pipec time",
}


def _met(value: float, op: str, goal: float) -> str:
    return "yes" if (value >= goal if op == ">=" else value <= goal) else "**no**"


def _runs_table(runs: dict) -> list[str]:
    """Each run's wall and CPU seconds, and its Spark jobs (median; figures taken before jobs were counted: -)."""
    rows = [
        "",
        "| run | wall s (min / median / max) | CPU s (min / median / max) | Spark jobs (median) |",
        "|---|---|---|---|",
    ]
    for key, run in runs.items():
        jobs = f"{run['jobs']['median']:g}" if "jobs" in run else "-"
        rows.append(f"| {NAMES[key]} | {' / '.join(_mmm(run['wall_s']))} | {' / '.join(_mmm(run['cpu_s']))} | {jobs} |")
    return rows


def tables_section(t: dict) -> list[str]:
    load = lambda l: " ".join(f"{x:.2f}" for x in l)  # noqa: E731
    rows = [
        "## Table sinks (Delta Lake)",
        "",
        f"`scripts/bench tables` (bench/tables.py): pyspark {t['pyspark']}, local[2], one session, variants in turn (the upserts' order "
        f"rotating from rep to rep); "
        f"{t['records']:,} records for the appends, {t['changes']:,} changes per upsert micro-batch, {t['reps']} reps "
        f"after a warm-up; load average {load(t['load_before'])} before, {load(t['load_after'])} after.",
        "",
        "| ratio (medians) | by wall | by CPU | goal | met (wall) |",
        "|---|---|---|---|---|",
    ]
    for key, label in RATIOS.items():
        value, op_goal = t["ratios"][key], GOALS[key]
        rows.append(
            f"| {label} | {_f(value['wall_s'])} | {_f(value['cpu_s'])} | {op_goal[0]} {op_goal[1]} | "
            f"{_met(value['wall_s'], *op_goal)} |"
        )
    rows += _runs_table(t["runs"])
    plain = t.get("without_deletion_vectors")
    if plain:
        rows += [
            "",
            "The same upserts in the same run into tables without deletion vectors (Delta's default):",
            "",
            "| ratio (medians) | by wall | by CPU | goal | met (wall) |",
            "|---|---|---|---|---|",
        ]
        for key, value in plain["ratios"].items():
            if key not in GOALS:  # the A/B's (--vs), below
                continue
            op_goal = GOALS[key]
            rows.append(
                f"| {RATIOS[key]} | {_f(value['wall_s'])} | {_f(value['cpu_s'])} | {op_goal[0]} {op_goal[1]} | "
                f"{_met(value['wall_s'], *op_goal)} |"
            )
        rows += _runs_table(plain["runs"])
    if t.get("vs"):
        rows += ["", f"A/B in the same run against pipec at `{t['vs']}` (medians, wall / CPU):", ""]
        for label, ratios in (("deletion vectors", t["ratios"]), ("without", (plain or {}).get("ratios", {}))):
            if "vs_over_pipec" in ratios:
                vs, hand = ratios["vs_over_pipec"], ratios["merge_hand_over_vs"]
                rows.append(
                    f"- {label}: {t['vs']}'s time / this pipec's {_f(vs['wall_s'])} / {_f(vs['cpu_s'])}; "
                    f"hand-written / {t['vs']}'s {_f(hand['wall_s'])} / {_f(hand['cpu_s'])}"
                )
    rows += [
        "",
        "How pipec's Delta upsert runs a micro-batch: one materialized pass over it (`localCheckpoint`: the upstream "
        "read once, the MERGE source deterministic) picks each key's newest change with one window and joins the "
        "key's tombstone (the small `__tombstones` table), counting the changes as it goes (an `Observation`, no "
        "count job); then one MERGE whose conditions hold the sequence rule (a change updates only a row with an "
        "older sequence), so there is no pre-join with the table; inserted and updated come from the MERGE "
        "command's own result. While the tombstones table has no data file (its Delta snapshot's file count, "
        "`DESCRIBE DETAIL`, no Spark job), the pass neither reads nor joins it: the benchmark's case, as every "
        "table's until its first delete; that took a micro-batch from 22 Spark jobs to 20, the hand-written "
        "MERGE's count (the materialized pass from 4 jobs to 2, as many as Delta's own materialization of the "
        "hand-written MERGE's source). Only a micro-batch that deletes also reads the table's key and sequence "
        "columns, for the deleted keys, to know which deletes apply (none of the benchmark's do). Where the rest "
        "goes, from probes in one session (1,000,000 rows with deletion vectors, 3-5 reps, load 1.9-3.0): pipec's "
        "materialized pass took 0.20-0.22 s, and Delta's own materialization of the hand-written MERGE's source is "
        "the same thing (an eager local checkpoint) inside that MERGE, which pipec's MERGE skips "
        "(`materializeSource=none`): pipec's MERGE with Delta materializing its source and no pass of pipec's own "
        "took 3.92 s (median) against 3.83 s as shipped and 3.70 s hand-written, so dropping the pass gains "
        "nothing. (An `Observation` on such a source does fire, once, with the exact count, when Delta "
        "materializes it; the pass stays because a micro-batch's deletes and revivals need a deterministic source "
        "after the MERGE too.) What is left is driver-side: the tombstones' file count (0.03-0.09 s), and the "
        "DataFrame steps, observation and command results of the pass and the MERGE (about 0.15 s of Python and "
        "Py4J calls per micro-batch in a profile, of which `first()` on a command's result took 0.03 s a call; "
        "the pass now takes fewer steps and the results are collected), with the wider table (the `__SEQUENCE` "
        "column the sequence rule compares). That is within this machine's spread (0.4-1.1 s between the reps of "
        "one variant in this run), so the ratio moves from set to set and run to run: in this run 1.01 and 0.81 "
        "for this pipec, 1.04 and 0.93 for the `--vs` ref's, whose upsert differs only in those driver steps. "
        "Compare versions with `--vs` in one run, not across sessions. The hand-written job counts nothing and "
        "forgets deletes.",
        "",
        "Upsert into 1,000,000 rows against 1,000: the headline tables have Delta's deletion vectors "
        '(`table-properties: {delta.enableDeletionVectors: "true"}`, the hand-written table too), so a MERGE '
        "marks the rows it replaces instead of rewriting the data files they are in. Partition pruning does not "
        "apply (the keys are spread at random over an unpartitioned table), nor does data skipping on the key, "
        "nor a key-range predicate from the micro-batch's smallest and largest key (the changes span the whole "
        "range). Without deletion vectors each MERGE rewrites the files its 500 updated rows are in (here all of "
        "the table): the second table. The two sets run one after the other in one session, the tables without "
        "deletion vectors second, on a warmer JVM, so compare ratios within a set, not times across them.",
        "",
        "Append: pipec's table sink writes as the hand-written job does: the same session and cached records, no "
        "idempotence options in a batch run (neither side), one commit that creates the table (no CREATE TABLE "
        "first), no count job and no observation (a batch `write_sink` without counts). Its one extra step is the "
        "table's existence check before the write (a schema read: 0.07-0.08 s on a missing table; it is what lets "
        "the job create the table with its partitioning and properties, or stop naming the columns that differ). "
        "A profile in one session (300,000 records, after a warm-up, on a busier machine than this run) put the rest on building the compiled chain's "
        "DataFrame: 0.70-0.86 s per call against 0.08-0.29 s for the hand-written chain (driver-side analysis, no "
        "Spark job), while the compiled chain's rows took the same time through the sink as through a plain Delta "
        "writer. That is the compiled chain's plan, with the exactness checks Kafka Connect's semantics need (the "
        "chain what-if section), paid once per run: the throughput benchmark, over 2,000,000 records, finds the "
        "same chain at 0.99 of hand-written. It is not the table sink's, and the baseline (the chain as an expert "
        "writes it, bench/handwritten.py) stays as it is.",
        "",
    ]
    return rows
