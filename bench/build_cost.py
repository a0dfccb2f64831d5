"""What a compiled job's DataFrame costs the driver before any record is read: building it (PySpark classic analyses
every select/withColumns/where as it is called, one Py4J round trip per Column call) and planning it (optimizer and
physical planning, which a streaming query repeats every micro-batch), against the hand-written jobs.

`scripts/bench build-cost [--reps N] [--variant LABEL=FOLDER ...]`: each FOLDER holds the generated jobs
(bench_chain_delta.py, bench_chain.py, payments_cleared.py) compiled by some pipec, e.g. main's, so that an A/B of
two compilers runs in one session; without --variant the current tree's compiler is used (label `this`). Prints, per
frame, build / plan seconds (min/median/max over the reps), Py4J calls and the analysed plan's node count.
No Kafka, no table: the frames are built over a small cached batch of Kafka-shaped rows and never run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JOBS = {
    "bench_chain_delta": "bench/chain.yaml with a Delta sink (scripts/bench tables' append)",
    "bench_chain": "bench/chain.yaml, Kafka sink",
    "payments_cleared": "pipelines/payments_cleared.yaml, streaming counts and dead letters (scripts/bench latency)",
}


def compile_jobs(out: Path) -> Path:
    """The three jobs compiled by this tree's pipec into `out`."""
    from pipec.project.driver import build_all, generate_all

    text = (ROOT / "bench" / "chain.yaml").read_text(encoding="utf-8")
    delta = out / "chain_delta.yaml"
    text = text.replace("name: bench_chain", "name: bench_chain_delta")
    delta.write_text(text[: text.index("\nsink:")] + "\nsink: {connector: delta, path: unused}\n", encoding="utf-8")
    paths = [str(delta), str(ROOT / "bench" / "chain.yaml"), str(ROOT / "pipelines" / "payments_cleared.yaml")]
    result = build_all(paths)
    result.diags.check()
    for name, source in generate_all(result).items():
        (out / name).write_text(source, encoding="utf-8")
    return out


def frames(folder: Path) -> dict:
    """name -> a function building that job's DataFrame over raw Kafka rows, as its run builds it."""
    from pipec.testing.runner import load_job

    chain_delta = load_job(folder / "bench_chain_delta.py")
    chain = load_job(folder / "bench_chain.py")
    payments = load_job(folder / "payments_cleared.py")

    def payments_rows(raw):
        rows = payments.transform(raw, payments.Counts(True))
        return payments.with_dead_letters(rows, "dlq")

    return {
        "chain_delta": chain_delta.transform,
        "chain_kafka": chain.transform,
        "payments": payments_rows,
    }


def hand_frames() -> dict:
    from bench import handwritten

    return {
        "hand_table_rows": handwritten.table_rows,
        "hand_chain": handwritten.transform,
        "hand_pass_through": lambda raw: raw.select("key", "value", "headers"),
    }


class Calls:
    """Counts Py4J commands sent to the JVM (every Column call, every DataFrame call, and PySpark's own)."""

    def __init__(self, client):
        self.n, self._client, self._send = 0, client, client.send_command

        def counted(command, *args, **kwargs):
            self.n += not command.startswith("m\n")  # not Py4J's deletes of objects Python let go (GC timing)
            return self._send(command, *args, **kwargs)

        client.send_command = counted


def measure(spark, build, raw, reps: int, calls: Calls) -> dict:
    """Build the frame `reps` times; each time time the build, count its Py4J calls, then optimise and plan it
    physically from its analysed plan in a fresh QueryExecution (what a streaming query does per micro-batch)."""
    state = spark._jsparkSession.sessionState()
    mode = spark._jvm.org.apache.spark.sql.execution.CommandExecutionMode.ALL()
    built, planned, py4j = [], [], []
    for _ in range(reps):
        before = calls.n
        t0 = time.perf_counter()
        df = build(raw)
        built.append(time.perf_counter() - t0)
        py4j.append(calls.n - before)
        analysed = df._jdf.queryExecution().analyzed()
        t1 = time.perf_counter()
        state.executePlan(analysed, mode).executedPlan()
        planned.append(time.perf_counter() - t1)
    qe = df._jdf.queryExecution()
    return {
        "build_s": stats(built),
        "plan_s": stats(planned),
        "py4j_calls": py4j[-1],
        "analysed_nodes": qe.analyzed().toString().count("\n"),
        "optimized_nodes": qe.optimizedPlan().toString().count("\n"),
    }


def stats(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench build-cost", description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--variant", action="append", default=[], help="LABEL=FOLDER of generated jobs")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--without-call-sites", action="store_true", help="also each frame with PySpark's call-site capture off"
    )
    args = parser.parse_args(argv)

    from pipec.testing.session import local_session, stop_local_session
    from pyspark import SparkContext

    from bench.generate import kafka_records

    variants = dict(v.split("=", 1) for v in args.variant)
    tmp = None
    if not variants:
        tmp = tempfile.TemporaryDirectory(prefix="bench-build-")
        variants = {"this": str(compile_jobs(Path(tmp.name)))}
    spark = local_session("bench-build-cost")
    load_before = os.getloadavg()
    try:
        spark.conf.set("spark.sql.session.timeZone", "UTC")
        spark.conf.set("spark.sql.ansi.enabled", "true")
        raw = kafka_records(spark, args.records).cache()
        raw.count()
        calls = Calls(SparkContext._gateway._gateway_client)
        builders = {
            f"{label}:{name}": f for label, folder in variants.items() for name, f in frames(Path(folder)).items()
        }
        builders |= hand_frames()
        if args.without_call_sites:  # every frame again with PySpark's call-site capture off, as the static conf
            # spark.python.sql.dataFrameDebugging.enabled=false makes it (read once per process: set here directly)
            import pyspark.errors.utils as origin

            def without_call_sites(build):
                def built(raw):
                    origin._enable_debugging_cache = False
                    try:
                        return build(raw)
                    finally:
                        origin._enable_debugging_cache = None

                return built

            builders |= {f"no-call-sites:{name}": without_call_sites(f) for name, f in builders.items()}
        for build in builders.values():  # warm-up: the JVM's JIT and Spark's caches, each frame once
            measure(spark, build, raw, 2, calls)
        results = {}
        for _ in range(args.reps):  # frames alternate within each rep so load drifts hit all alike
            for name, build in builders.items():
                r = measure(spark, build, raw, 1, calls)
                results.setdefault(name, {"build": [], "plan": [], "py4j_calls": r["py4j_calls"]})
                results[name]["build"].append(r["build_s"]["median"])
                results[name]["plan"].append(r["plan_s"]["median"])
                results[name] |= {"analysed_nodes": r["analysed_nodes"], "optimized_nodes": r["optimized_nodes"]}
        load_after = os.getloadavg()
    finally:
        stop_local_session(spark)
        if tmp:
            tmp.cleanup()
    out = {"reps": args.reps, "load_before": load_before, "load_after": load_after, "frames": {}}
    print(f"load {' '.join(f'{x:.2f}' for x in load_before)} -> {' '.join(f'{x:.2f}' for x in load_after)}")
    print(f"{'frame':32} {'build s min/med/max':24} {'plan s min/med/max':24} py4j  nodes(analysed/optimized)")
    for name, r in results.items():
        b, p = stats(r["build"]), stats(r["plan"])
        out["frames"][name] = {
            "build_s": b,
            "plan_s": p,
            **{k: r[k] for k in ("py4j_calls", "analysed_nodes", "optimized_nodes")},
        }
        print(
            f"{name:32} {b['min']:.3f}/{b['median']:.3f}/{b['max']:.3f}{'':5} {p['min']:.3f}/{p['median']:.3f}/{p['max']:.3f}"
            f"{'':5} {r['py4j_calls']:5} {r['analysed_nodes']}/{r['optimized_nodes']}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
