"""pipec's benchmark (`scripts/bench [--quick]`).

1. Compiler speed: cold `pipec compile` of 1,000 different 20-step pipelines (no cache), `pipec check` of them
   unchanged, `pipec compile` of one; where one process's CPU goes; cold `pipec validate` latency.
2. Throughput of bench/chain.yaml in ONE local[2] SparkSession over cached raw Kafka rows (bench/generate.py),
   written to Spark's `noop` sink: the compiled job's `transform` (the generated file, imported as written),
   the hand-written native version (bench/handwritten.py) and a per-record Python UDF (bench/udf.py, over a
   prefix of the records); and bench/structs.yaml (struct edits only, over a 40-field value) compiled and by hand
   (bench/handwritten_structs.py). Outputs are compared before anything is timed; the variants then alternate, in
   a rotating order, over several repetitions.
3. Spark analysis and optimisation time of a 50-step chain, and plan size against chain length.

Writes a JSON result (bench/results.json; with --quick, out/bench-quick.json, which git ignores) and, for a full
run, docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAIN = ROOT / "bench" / "chain.yaml"
STRUCTS = ROOT / "bench" / "structs.yaml"
VARIANTS = ("generated", "handwritten", "udf", "generated_filter_first", "structs_generated", "structs_handwritten")
NATIVE = ("generated", "handwritten", "generated_filter_first", "structs_generated", "structs_handwritten")
BASELINE = {  # each variant's output is compared with its baseline's
    "handwritten": "generated",
    "udf": "generated",
    "generated_filter_first": "generated",
    "structs_handwritten": "structs_generated",
}


def log(text: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {text}", flush=True)


def tree_cpu_seconds(root: int, descendants: bool = True) -> float:
    """User + system CPU seconds of a process (the JVM; its dead threads included) and, with `descendants`, of its
    live descendants (the UDF variant's Python workers)."""
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
        times[int(entry)] = int(fields[11]) + int(fields[12])  # utime, stime
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0)
        if descendants:
            todo += [c for c, p in parents.items() if p == pid]
    return total / os.sysconf("SC_CLK_TCK")


def use_connectors(*artifacts: str) -> None:
    """The session started next fetches these Spark connectors (pipec.spark_versions names), as a job would
    for the installed pyspark."""
    import pyspark
    from pipec.spark_versions import PACKAGES_VERSION_ENV, coordinates

    packages = coordinates(pyspark.__version__, artifacts, os.environ.get(PACKAGES_VERSION_ENV))
    os.environ["PYSPARK_SUBMIT_ARGS"] = f"--packages {','.join(packages)} pyspark-shell"


def session(driver_memory: str, java_options: str = "", master: str = "local[2]"):
    os.environ["TZ"] = "UTC"  # the UDF variant's Python workers read timestamps as local (= UTC) datetimes
    time.tzset()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(master)
        .appName("pipec-bench")
        .config("spark.driver.memory", driver_memory)
        .config("spark.driver.extraJavaOptions", java_options)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def fingerprint(df) -> tuple:
    """Row count and two order-independent sums of row hashes (a multiset fingerprint of the whole output)."""
    from pyspark.sql import functions as F

    cols = [F.col(c) for c in df.columns]
    row = df.agg(
        F.count(F.lit(1)),
        F.sum(F.xxhash64(*cols).cast("decimal(38,0)")),
        F.sum(F.hash(*cols).cast("decimal(38,0)")),
    ).first()
    return tuple(row)


def check_equal(frames: dict, full: dict) -> dict:
    """Every variant's output on the prefix equals its baseline's (the compiled job's) exactly (both ways, with
    duplicates); on all records, the native variants' outputs have their baseline's fingerprint."""
    out = {"prefix_rows_out": frames["generated"].count()}
    for name, baseline in BASELINE.items():
        base, df = frames[baseline], frames[name]
        rows = base.count()
        missing, extra = base.exceptAll(df).count(), df.exceptAll(base).count()
        if missing or extra or df.count() != rows:
            sample = base.exceptAll(df).limit(2).collect() + df.exceptAll(base).limit(2).collect()
            raise SystemExit(f"bench: {name} output differs from {baseline}'s: {sample}")
        out[f"{name}_exact"] = True
    out["structs_prefix_rows_out"] = frames["structs_generated"].count()
    if full:
        fps = {name: fingerprint(df) for name, df in full.items()}
        for name, baseline in BASELINE.items():
            if name in fps and fps[name] != fps[baseline]:
                raise SystemExit(f"bench: {name} and {baseline} differ over all records: {fps}")
        out["full_rows_out"] = int(fps["generated"][0])
        out["full_fingerprint"] = [str(v) for v in fps["generated"]]
        out["structs_full_rows_out"] = int(fps["structs_generated"][0])
    return out


def noop(df) -> None:
    df.write.format("noop").mode("overwrite").save()


def throughput(spark, jvm_pid: int, frames: dict, records: dict, reps: int, warmups: int) -> dict:
    """Alternate the variants (rotating which goes first) and time each write to the noop sink."""
    for _ in range(warmups):
        for name in VARIANTS:
            noop(frames[name])
    runs = {name: [] for name in VARIANTS}
    for rep in range(reps):
        order = VARIANTS[rep % len(VARIANTS) :] + VARIANTS[: rep % len(VARIANTS)]
        for name in order:
            python = name == "udf"  # only the UDF variant runs Python workers
            cpu0, t0 = tree_cpu_seconds(jvm_pid, python), time.perf_counter()
            noop(frames[name])
            wall, cpu = time.perf_counter() - t0, tree_cpu_seconds(jvm_pid, python) - cpu0
            runs[name].append({"wall_s": wall, "cpu_s": cpu, "records_per_s": records[name] / wall})
            log(f"rep {rep + 1}/{reps} {name}: {wall:.2f} s, {records[name] / wall:,.0f} records/s, {cpu:.1f} CPU s")
    return runs


def ratios(runs: dict, records: dict, a: str, b: str) -> dict:
    """a ÷ b throughput per repetition (wall clock), and per CPU second."""
    from .compiler_speed import summary

    wall = [x["records_per_s"] / y["records_per_s"] for x, y in zip(runs[a], runs[b])]
    cpu = [
        (records[a] / x["cpu_s"]) / (records[b] / y["cpu_s"])
        for x, y in zip(runs[a], runs[b])
        if x["cpu_s"] and y["cpu_s"]
    ]
    return {"wall": summary(wall), "cpu": summary(cpu) if cpu else None}


def filter_first(folder: Path) -> Path:
    """bench/chain.yaml with its Filter step moved to the front (the same records out: the filter reads a header
    the chain does not touch). Spark then pushes it below the parse, and the chain runs in a single codegen stage."""
    import yaml

    doc = yaml.safe_load(CHAIN.read_text(encoding="utf-8"))
    steps = doc["transforms"]
    filters = [s for s in steps if s["type"] == "Filter"]
    doc["transforms"] = filters + [s for s in steps if s["type"] != "Filter"]
    doc["name"] = "bench_chain_filter_first"
    path = folder / "chain_filter_first.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def spark_part(args, result: dict) -> None:
    from pyspark.sql import functions as F  # noqa: F401

    from . import handwritten, handwritten_structs, udf
    from .compiler_speed import summary
    from .generate import kafka_records, struct_records
    from .plans import analysis_times, codegen_stats, compile_job, growth, plan_stats

    t0 = time.perf_counter()
    if args.java_options is None:
        from pipec.emit.job import JVM_OPTIONS

        args.java_options = JVM_OPTIONS
    spark = session(args.driver_memory, args.java_options)
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    result["spark_start_s"] = time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="pipec-bench-") as tmp:
        job = compile_job(CHAIN, Path(tmp))
        first = compile_job(filter_first(Path(tmp)), Path(tmp))
        structs = compile_job(STRUCTS, Path(tmp))
        for key, value in job.SESSION_CONF.items():  # the job's own session settings (UTC, ANSI) for every variant
            spark.conf.set(key, value)
        log(f"generating {args.records:,} records (and {args.udf_records:,} for the UDF variant), cached")
        raw = kafka_records(spark, args.records).cache()
        raw.count()
        prefix = raw if args.udf_records == args.records else kafka_records(spark, args.udf_records).cache()
        prefix.count()
        struct_raw = struct_records(spark, args.records).cache()
        struct_raw.count()
        struct_prefix = (
            struct_raw if args.udf_records == args.records else struct_records(spark, args.udf_records).cache()
        )
        struct_prefix.count()
        frames = {
            "generated": job.transform(raw),
            "handwritten": handwritten.transform(raw),
            "udf": udf.transform(prefix),
            "generated_filter_first": first.transform(raw),
            "structs_generated": structs.transform(struct_raw),
            "structs_handwritten": handwritten_structs.transform(struct_raw),
        }
        records = {name: args.udf_records if name == "udf" else args.records for name in VARIANTS}
        result["plans"] = {name: plan_stats(frames[name]) for name in NATIVE}
        result["codegen"] = {name: codegen_stats(spark, frames[name]) for name in NATIVE}
        log(f"plans: {result['plans']}")
        log("comparing outputs")
        on_prefix = {
            "generated": job.transform(prefix),
            "handwritten": handwritten.transform(prefix),
            "udf": frames["udf"],
            "generated_filter_first": first.transform(prefix),
            "structs_generated": structs.transform(struct_prefix),
            "structs_handwritten": handwritten_structs.transform(struct_prefix),
        }
        full = {k: frames[k] for k in NATIVE} if args.udf_records != args.records else {}
        result["equality"] = check_equal(on_prefix, full)
        log(f"outputs equal: {result['equality']}")
        runs = throughput(spark, jvm_pid, frames, records, args.reps, args.warmups)
        result["throughput"] = {
            "records": records,
            "runs": runs,
            "records_per_s": {k: summary([r["records_per_s"] for r in v]) for k, v in runs.items()},
            "generated_vs_handwritten": ratios(runs, records, "generated", "handwritten"),
            "generated_vs_udf": ratios(runs, records, "generated", "udf"),
            "generated_filter_first_vs_handwritten": ratios(runs, records, "generated_filter_first", "handwritten"),
            "structs_generated_vs_handwritten": ratios(runs, records, "structs_generated", "structs_handwritten"),
        }
        raw.unpersist()
        struct_raw.unpersist()
        small = kafka_records(spark, 1000).cache()
        small.count()
        log(f"analysing a {args.chain_steps}-step chain {args.analysis_reps} times")
        result["analysis"] = analysis_times(spark, small, args.chain_steps, args.analysis_reps, Path(tmp))
        if args.growth:
            result["growth"] = growth(spark, small, args.growth)
    spark.stop()


def machine() -> dict:
    import platform
    import subprocess

    import pyspark
    from pipec.project.fingerprint import formatter_version

    def cpuinfo(key: str) -> str:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(key):
                return line.split(":", 1)[1].strip()
        return "?"

    mem = next(l for l in Path("/proc/meminfo").read_text().splitlines() if l.startswith("MemTotal"))
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    return {
        "cpu": cpuinfo("model name"),
        "cpus": os.cpu_count(),
        "memory_gib": round(int(mem.split()[1]) / 1024 / 1024, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "java": java[0] if java else "?",
        "pyspark": pyspark.__version__,
        "ruff": formatter_version(),  # the formatter that writes the jobs
        "load_average_start": os.getloadavg(),
    }


PRESETS = {  # full run; --quick overrides
    "full": dict(
        records=2_000_000,
        udf_records=200_000,
        reps=5,
        warmups=1,
        pipelines=1000,
        compile_runs=3,
        validate_runs=10,
        analysis_reps=5,
        growth=[10, 20, 30, 40, 50],
    ),
    "quick": dict(
        records=200_000,
        udf_records=50_000,
        reps=3,
        warmups=0,
        pipelines=1000,
        compile_runs=1,
        validate_runs=3,
        analysis_reps=3,
        growth=[],
    ),
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="~200k records, fewer repetitions (under 2 minutes)")
    parser.add_argument("--records", type=int, help="records for the generated and hand-written variants")
    parser.add_argument("--udf-records", type=int, help="records for the UDF variant (a prefix of the others')")
    parser.add_argument("--reps", type=int, help="timed repetitions of each variant")
    parser.add_argument("--pipelines", type=int, help="pipelines compiled and checked for the compile figures")
    parser.add_argument("--compile-runs", type=int, help="cold runs of pipec compile and check over them")
    parser.add_argument("--skip-compile", action="store_true", help="skip the compile measurements")
    parser.add_argument(
        "--compile-only",
        action="store_true",
        help="only the compile measurements (no JVM); with --write, merged into bench/results.json and docs/benchmarks.md",
    )
    parser.add_argument(
        "--write", action="store_true", help="with --compile-only: merge the figures into bench/results.json"
    )
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument(
        "--java-options", help="JVM options for the Spark driver (default: the ones a generated job sets)"
    )
    parser.add_argument("--report-only", type=Path, metavar="JSON", help="only rewrite the markdown from a result file")
    parser.add_argument("--json", type=Path, help="where to write the JSON result")
    parser.add_argument(
        "--markdown", type=Path, help="where to write the markdown report (default for a full run: docs/benchmarks.md)"
    )
    args = parser.parse_args(argv)
    preset = PRESETS["quick" if args.quick else "full"]
    for key, value in preset.items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)
    args.chain_steps, args.steps = 50, 20
    args.udf_records = min(args.udf_records, args.records)
    args.json = args.json or (ROOT / "out" / "bench-quick.json" if args.quick else ROOT / "bench" / "results.json")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    if args.markdown is None and not args.quick:
        args.markdown = ROOT / "docs" / "benchmarks.md"
    return args


def compile_only(args) -> int:
    """`scripts/bench --compile-only [--write]`: issue 14's target 2 alone, printed; with --write merged into
    bench/results.json as `compile_speed` (with its own date and load) and docs/benchmarks.md rewritten."""
    from .compiler_speed import compile_speed
    from .report import compile_summary, markdown

    log(f"cold pipec compile and check of {args.pipelines} pipelines of {args.steps} steps, x{args.compile_runs}")
    figures = compile_speed(args.pipelines, args.steps, args.compile_runs)
    results = ROOT / "bench" / "results.json"
    if args.write:
        result = json.loads(results.read_text(encoding="utf-8"))
        result.pop("compile", None)  # the figures of the compiler that ran black, replaced by these
        result["compile_speed"] = figures
        results.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        (ROOT / "docs" / "benchmarks.md").write_text(markdown(result), encoding="utf-8")
        log("wrote bench/results.json (compile_speed) and docs/benchmarks.md")
    lines, met = compile_summary(figures)
    print("\n".join(lines))
    return 0 if met else 1


def main(argv: list[str] | None = None) -> int:
    from .compiler_speed import cold_validate, compile_speed
    from .report import markdown, summary_lines
    from .targets import issue_targets_met

    args = parse_args(argv)
    if args.report_only:
        result = json.loads(args.report_only.read_text(encoding="utf-8"))
        (args.markdown or ROOT / "docs" / "benchmarks.md").write_text(markdown(result), encoding="utf-8")
        print("\n".join(summary_lines(result)))
        return 0 if issue_targets_met(result) else 1
    if args.compile_only:
        return compile_only(args)
    started = time.perf_counter()
    result: dict = {
        "mode": "quick" if args.quick else "full",
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    result["settings"] = {
        k: getattr(args, k)
        for k in (
            "records",
            "udf_records",
            "reps",
            "warmups",
            "pipelines",
            "compile_runs",
            "steps",
            "chain_steps",
            "analysis_reps",
            "driver_memory",
            "java_options",
        )
    }
    if not args.skip_compile:
        log(f"cold pipec compile and check of {args.pipelines} pipelines of {args.steps} steps, x{args.compile_runs}")
        result["compile_speed"] = compile_speed(args.pipelines, args.steps, args.compile_runs)
    log(f"cold `pipec validate` x{args.validate_runs}")
    result["cold_validate"] = cold_validate(args.validate_runs, CHAIN)
    spark_part(args, result)
    result["machine"]["load_average_end"] = os.getloadavg()
    result["wall_s"] = time.perf_counter() - started
    if not args.quick:  # measured by their own runs: `scripts/bench changelog-state --write`, ...
        from .results import kept_from

        result.update(kept_from(args.json))
    args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.json.relative_to(ROOT) if args.json.is_relative_to(ROOT) else args.json}")
    if args.markdown:
        args.markdown.write_text(markdown(result), encoding="utf-8")
        log(f"wrote {args.markdown}")
    print("\n".join(summary_lines(result)))
    return 0 if issue_targets_met(result) else 1


if __name__ == "__main__":
    sys.exit(main())
