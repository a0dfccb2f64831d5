"""Table sinks into Delta Lake (issue 26): three ratios, taken in one local[2] SparkSession, variants alternating.

1. append: bench/chain.yaml's compiled job into a Delta table (its `write_sink`) against the same chain written
   by hand (bench/handwritten.py's `table_rows`) into Delta; goal >= 0.95 (hand-written time / pipec time).
2. upsert scaling: one micro-batch of 1,000 changes (half updates of existing keys, half new keys) through pipec's
   upsert (its MERGE, tombstones and counts) into a table of 1,000,000 rows against one of 1,000 rows; goal <= 3.
3. MERGE: the same micro-batch into the 1,000,000-row table through pipec against a hand-written `foreachBatch`
   MERGE (newest change per key by a window, then MERGE INTO ... WHEN MATCHED AND newer UPDATE, WHEN NOT MATCHED
   INSERT); goal >= 0.95 (hand-written time / pipec time).
The upserts run twice: into tables with Delta's deletion vectors (pipec's through `table-properties`, the
hand-written one created with the same property; the headline ratios), then into tables without (Delta's default).
Each repetition's changes carry a newer version than the last, so every MERGE updates. The session records no Python
call site per Column method, as a generated job's own session (PySpark's default otherwise: --call-sites); the
setting is process-wide, so the hand-written variants run with it too. Wall and CPU (the JVM's,
from /proc, plus the driver's) and Spark jobs per run, min/median/max, and the load average before and after.

With `--vs REF` the upserts also run pipec's upsert as compiled at git ref REF (its sources taken with `git archive`,
compiled in a subprocess) into its own tables in the same session: an A/B of two versions of pipec in one run.

    scripts/bench tables [--records 300000] [--reps 3] [--write] [--vs main] [--upserts-only]
        (--write merges the figures into bench/results.json as `tables`, rewrites docs/benchmarks.md; --upserts-only
        skips the appends, and prints and writes to out/ only)
    scripts/bench tables --append-only [--baseline-job FILE]
        (the append ratio alone; FILE, a job of bench/chain.yaml with a Delta sink compiled by another pipec, e.g.
        main's through bench/build_cost.py's compile_jobs, appends too in the same session: an A/B of compilers)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "bench-tables.json"
CHANGES = 1_000
UPSERT = """\
    version: 1
    name: bench_upsert
    mode: batch
    source:
      connector: files
      path: unused
      format: json
      columns: [{name: id, type: BIGINT}, {name: name, type: STRING}, {name: v, type: BIGINT}]
    sink: {connector: delta, path: unused, apply: upsert, primary-key: [id], sequence-by: v}
"""
# Delta's deletion vectors: a MERGE marks the rows it replaces instead of rewriting every file they are in
DELETION_VECTORS = {"delta.enableDeletionVectors": "true"}


def log(text: str) -> None:
    print(f"[bench tables {time.strftime('%H:%M:%S')}] {text}", flush=True)


def jvm_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(pid: int, run) -> dict:
    """Wall and CPU seconds of `run`, and the Spark jobs it started (its own job group)."""
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    group = f"bench-tables-{time.perf_counter_ns()}"
    context.setJobGroup(group, group)
    wall, cpu, jvm = time.perf_counter(), time.process_time(), jvm_cpu_s(pid)
    run()
    figures = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu + jvm_cpu_s(pid) - jvm}
    return figures | {"jobs": len(context.statusTracker().getJobIdsForGroup(group))}


def stats(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def chain_job(folder: Path):
    """bench/chain.yaml with its Kafka sink swapped for a Delta append."""
    from pipec.testing.runner import compile_job

    text = (ROOT / "bench" / "chain.yaml").read_text(encoding="utf-8")
    text = text[: text.index("\nsink:")] + "\nsink: {connector: delta, path: unused}\n"
    (folder / "chain").mkdir()
    return compile_job(folder / "chain", text)


# compiles a pipeline with the pipec whose sources are at argv[1] (not the installed one) into folder argv[2]
COMPILE_AT = """
import sys
sys.meta_path = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from pipec.project.driver import build_all, generate_all
result = build_all([sys.argv[2] + "/pipeline.yaml"])
result.diags.check()
for name, source in generate_all(result).items():
    Path(sys.argv[2], name).write_text(source, encoding="utf-8")
"""


def job_at(ref: str, folder: Path, yaml_text: str):
    """The pipeline's job as pipec at git ref `ref` compiles it."""
    from pipec.testing.runner import load_job

    tree = folder / "sources"
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    (tree / "link").mkdir()
    (tree / "link" / "pipec").symlink_to(tree / "compiler", target_is_directory=True)
    (folder / "pipeline.yaml").write_text(yaml_text, encoding="utf-8")
    subprocess.run([sys.executable, "-c", COMPILE_AT, str(tree / "link"), str(folder)], check=True)
    (job,) = [p for p in folder.glob("*.py")]
    return load_job(job)


def changes_frame(spark, keys: int, version: int):
    """1,000 changes in pipec's sink rows (value columns, __op, __SEQUENCE, __ORDER): half update existing keys
    spread over the table, half add new keys."""
    from pyspark.sql import functions as F

    step = max(keys // (CHANGES // 2), 1)
    ids = F.when(F.col("id") % 2 == 0, (F.col("id") / 2 * step).cast("bigint")).otherwise(
        F.col("id") + keys + version * CHANGES
    )
    return (
        spark.range(CHANGES)
        .select(
            ids.alias("id"),
            F.concat(F.lit("n-"), F.col("id").cast("string")).alias("name"),
            F.lit(version).cast("bigint").alias("v"),
        )
        .select(
            "*",
            F.lit("+I").alias("__op"),
            F.struct(F.col("v")).alias("__SEQUENCE"),
            F.struct(F.lit(0).alias("partition"), F.col("id").alias("offset"), F.col("id").alias("read")).alias(
                "__ORDER"
            ),
        )
    )


def build_tables(spark, upsert_job, folder: Path, keys: int, properties: dict[str, str], hand: bool = True) -> tuple:
    """pipec's upsert table and the hand-written one (unless not `hand`), `keys` rows each (version 0), both with the
    same table properties."""
    from pyspark.sql import functions as F

    base = spark.range(keys).select(
        F.col("id"), F.concat(F.lit("n-"), F.col("id").cast("string")).alias("name"), F.lit(0).cast("bigint").alias("v")
    )
    args = upsert_job.parse_args(["--sink-path", str(folder / f"pipec-{keys}")])
    table = upsert_job.sink_table(args)
    upsert_job._PREPARED.discard(table.ref)
    table.prepare(spark)
    base.withColumn("__SEQUENCE", F.struct("v")).write.format("delta").mode("append").save(table.path)
    if not hand:
        return table, None
    hand = str(folder / f"hand-{keys}")
    given = ", ".join(f"'{k}' = '{v}'" for k, v in properties.items())
    spark.sql(
        f"CREATE TABLE delta.`{hand}` (id BIGINT, name STRING, v BIGINT) USING delta"
        + (f" TBLPROPERTIES ({given})" if given else "")
    )
    base.write.format("delta").mode("append").save(hand)
    return table, hand


def hand_merge(spark, changes, path: str) -> None:
    """The hand-written foreachBatch MERGE: newest change per key, then one MERGE."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    newest = (
        changes.select("id", "name", "v")
        .withColumn("n", F.row_number().over(Window.partitionBy("id").orderBy(F.col("v").desc())))
        .where("n = 1")
        .drop("n")
    )
    newest.createOrReplaceTempView("hand_changes")
    spark.sql(
        f"MERGE INTO delta.`{path}` t USING hand_changes s ON t.id = s.id "
        "WHEN MATCHED AND s.v > t.v THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
    )


def upsert_runs(
    spark, pid: int, folder: Path, properties: dict[str, str], reps: int, vs: str | None = None
) -> dict[str, list[dict]]:
    """The upsert micro-batches (pipec into 1,000,000 and 1,000 rows, the hand-written MERGE into 1,000,000; with
    `vs`, pipec at that git ref into 1,000,000 rows too), tables with `properties`, `reps` reps after a warm-up, the
    variants' order rotated from rep to rep."""
    from pipec.testing.runner import compile_job

    folder.mkdir()
    upsert_yaml = textwrap.dedent(UPSERT)
    if properties:
        upsert_yaml = upsert_yaml.replace(
            "sequence-by: v}", f"sequence-by: v, table-properties: {json.dumps(properties)}}}"
        )
    (folder / "upsert").mkdir()
    upsert_job = compile_job(folder / "upsert", upsert_yaml)
    log(f"building 1,000,000- and 1,000-row tables, properties {properties}")
    big, big_hand = build_tables(spark, upsert_job, folder, 1_000_000, properties)
    small, _ = build_tables(spark, upsert_job, folder, 1_000, properties)
    variants = {
        "upsert_1m": lambda version: big.write(changes_frame(spark, 1_000_000, version), None),
        "upsert_1k": lambda version: small.write(changes_frame(spark, 1_000, version), None),
        "merge_hand": lambda version: hand_merge(spark, changes_frame(spark, 1_000_000, version), big_hand),
    }
    if vs:
        (folder / "ref").mkdir()
        ref, _ = build_tables(
            spark, job_at(vs, folder / "ref", upsert_yaml), folder / "ref", 1_000_000, properties, False
        )
        variants["upsert_1m_vs"] = lambda version: ref.write(changes_frame(spark, 1_000_000, version), None)
    runs: dict[str, list[dict]] = {k: [] for k in variants}
    for path in (big.path, big_hand):
        detail = spark.sql(f"DESCRIBE DETAIL delta.`{path}`").first()
        log(f"{Path(path).name}: {detail['numFiles']} files, properties {detail['properties']}")
    for i in range(-1, reps):  # rep -1 warms up
        version = i + 2
        names = list(variants)
        for name in names[i % len(names) :] + names[: i % len(names)]:
            figures = timed(pid, lambda: variants[name](version))
            if i >= 0:
                runs[name].append(figures)
        if i >= 0:
            last = {name: runs[name][-1] for name in runs}
            log(
                f"upsert rep {i}: 1M {last['upsert_1m']['wall_s']:.2f} s ({last['upsert_1m']['jobs']} jobs), "
                f"1K {last['upsert_1k']['wall_s']:.2f} s, hand {last['merge_hand']['wall_s']:.2f} s "
                f"({last['merge_hand']['jobs']} jobs)"
                + (f", pipec at {vs} {last['upsert_1m_vs']['wall_s']:.2f} s" if vs else "")
            )
    counts = spark.read.format("delta").load(big.path).count(), spark.read.format("delta").load(big_hand).count()
    assert counts[0] == counts[1], counts  # both tables took the same changes
    return runs


def append_ratios(runs: dict[str, list[dict]], load_before: tuple) -> int:
    """--append-only: each compiled job's append against the hand-written one, medians, wall and CPU."""
    print(f"load {' '.join(f'{x:.2f}' for x in load_before)} -> {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, rs in runs.items():
        wall, cpu = stats([r["wall_s"] for r in rs]), stats([r["cpu_s"] for r in rs])
        print(f"{name}: wall {wall['min']:.2f}/{wall['median']:.2f}/{wall['max']:.2f} s, cpu {cpu['median']:.2f} s")
    hand = {m: statistics.median(r[m] for r in runs["append_hand"]) for m in ("wall_s", "cpu_s")}
    for name in runs.keys() - {"append_hand"}:
        medians = {m: statistics.median(r[m] for r in runs[name]) for m in ("wall_s", "cpu_s")}
        print(
            f"hand / {name}: wall {hand['wall_s'] / medians['wall_s']:.3f}, cpu {hand['cpu_s'] / medians['cpu_s']:.3f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench tables", description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=300_000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--vs", metavar="REF", help="also pipec's upsert as compiled at this git ref (an A/B)")
    parser.add_argument("--upserts-only", action="store_true", help="skip the appends (not with --write)")
    parser.add_argument(
        "--call-sites",
        action="store_true",
        help="PySpark's default: record the Python call site of every Column method (generated jobs turn it off)",
    )
    parser.add_argument("--append-only", action="store_true", help="the append ratio only (no upserts)")
    parser.add_argument("--baseline-job", help="another compiled bench/chain.yaml Delta job appending alongside")
    args = parser.parse_args(argv)
    if args.write and (args.upserts_only or args.append_only):
        parser.error("--write needs every figure: leave out --upserts-only and --append-only")

    import pyspark
    from pipec.testing.session import local_session, stop_local_session, table_settings
    from pyspark import SparkContext

    from bench.generate import kafka_records
    from bench.handwritten import table_rows

    packages, conf = table_settings(pyspark.__version__)
    if not args.call_sites:  # as a generated job's own session runs, and for the hand-written job too (one session)
        conf = {**conf, "spark.python.sql.dataFrameDebugging.enabled": "false"}
    spark = local_session("bench-tables", packages, conf)
    pid = SparkContext._gateway.proc.pid
    load_before = os.getloadavg()
    folder = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    try:
        job = chain_job(folder)
        raw = kafka_records(spark, args.records).cache()
        raw.count()
        jobs = {"append_pipec": job}
        if args.baseline_job:
            from pipec.testing.runner import load_job

            jobs["append_baseline"] = load_job(Path(args.baseline_job))
        runs: dict[str, list[dict]] = {k: [] for k in (*jobs, "append_hand")}

        def append_pipec(i: int, name: str = "append_pipec") -> None:
            out = jobs[name].parse_args(["--sink-path", str(folder / f"a-{name}-{i}")])
            jobs[name].write_sink(jobs[name].transform(raw), out)

        def append_hand(i: int) -> None:
            table_rows(raw).write.format("delta").mode("append").save(str(folder / f"a-hand-{i}"))

        log(f"append: {args.records:,} records, {args.reps} reps after a warm-up of each")
        if not args.upserts_only:
            for name in jobs:
                append_pipec(-1, name)
            append_hand(-1)
        for i in range(0 if args.upserts_only else args.reps):
            for name in jobs:
                runs[name].append(timed(pid, lambda: append_pipec(i, name)))
            runs["append_hand"].append(timed(pid, lambda: append_hand(i)))
            log(f"append rep {i}: " + ", ".join(f"{n} {r[-1]['wall_s']:.2f} s" for n, r in runs.items()))
        if args.append_only:
            return append_ratios(runs, load_before)
        runs |= upsert_runs(spark, pid, folder / "dv", DELETION_VECTORS, args.reps, args.vs)
        plain = upsert_runs(spark, pid, folder / "plain", {}, args.reps, args.vs)
    finally:
        stop_local_session(spark)
        shutil.rmtree(folder, ignore_errors=True)

    def summarized(runs: dict[str, list[dict]]) -> dict:
        return {name: {m: stats([r[m] for r in rs]) for m in ("wall_s", "cpu_s", "jobs")} for name, rs in runs.items()}

    summary, plain_summary = summarized({k: v for k, v in runs.items() if v}), summarized(plain)

    def ratio(a: str, b: str, metric: str, summary: dict = summary) -> float:
        if a not in summary or b not in summary:
            return float("nan")
        return summary[a][metric]["median"] / summary[b][metric]["median"]

    def ratios(summary: dict) -> dict:
        """The MERGE ratios, and with --vs the A/B: pipec at the ref ÷ pipec here (above 1: faster here)."""
        pairs = {"upsert_1m_over_1k": ("upsert_1m", "upsert_1k"), "merge_hand_over_pipec": ("merge_hand", "upsert_1m")}
        if args.vs:
            pairs |= {
                "merge_hand_over_vs": ("merge_hand", "upsert_1m_vs"),
                "vs_over_pipec": ("upsert_1m_vs", "upsert_1m"),
            }
        return {key: {m: ratio(a, b, m, summary) for m in ("wall_s", "cpu_s")} for key, (a, b) in pairs.items()}

    figures = {
        "records": args.records,
        "reps": args.reps,
        "changes": CHANGES,
        "upsert_table_properties": DELETION_VECTORS,
        "pyspark": pyspark.__version__,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "runs": summary,
        "ratios": {
            "append_hand_over_pipec": {m: ratio("append_hand", "append_pipec", m) for m in ("wall_s", "cpu_s")},
            **ratios(summary),
        },
        # the same upserts into tables without deletion vectors (Delta's default)
        "without_deletion_vectors": {"runs": plain_summary, "ratios": ratios(plain_summary)},
    }
    if args.vs:
        figures["vs"] = args.vs
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print(json.dumps({"ratios": figures["ratios"], "without": figures["without_deletion_vectors"]["ratios"]}, indent=1))
    if args.write:
        from bench.results import merge

        merge("tables", figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
