"""The upsert-kafka changelog state: what a micro-batch costs as the state grows (issue 15).

For each state size (default 1,000 and 1,000,000 keys): micro-batch 0 inserts that many keys, then each later
micro-batch changes 1,000 distinct keys (85% updates, 5% identical re-upserts, 5% deletes, 5% new keys), as raw
Kafka-shaped rows, one parquet file per micro-batch. All runs share one SparkSession (local[2]) and start after a
warm-up. The designs that are a ChangelogState (bench/changelog_designs.py) take turns micro-batch by micro-batch,
in a rotating order, so the host's load falls on all alike; the state-store design runs as a streaming query
after them. Each micro-batch's work is timed (wall, and CPU of the JVM with its Python workers plus the driver),
with the load average and the bytes the state holds on disk after it. The designs must emit the same number of
events for a state size.

Ratios, for each design: the big state's micro-batch ÷ the small state's, over the micro-batches after the first:
of the medians, of the means (which include the compaction micro-batches), and micro-batch by micro-batch. Target
(issue 15): the shipped design's ratio of the means (`ratio`) <= 2.

    scripts/bench changelog-state [--states 1000,1000000] [--batches 18] [--designs deltas,rewrite,...]
        [--write]   (merge the figures into bench/results.json as `changelog_state` and rewrite docs/benchmarks.md)

state-store needs pandas and pyarrow, delta-lake the io.delta:delta-spark package (fetched by Spark from Maven
Central); neither is a pipec dependency.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from . import changelog_designs as designs

ROOT = Path(__file__).resolve().parent.parent
JOB = ROOT / "generated" / "customer_profiles.py"  # the job whose ChangelogState `deltas` and `rewrite` run
OUT = (
    ROOT / "out" / "changelog-state.json"
)  # every run's figures (git ignores out/); --write merges them into bench/results.json
BATCH_KEYS = 1000
MIX = (("update", 0.85), ("same", 0.05), ("delete", 0.05), ("insert", 0.05))
WARMUP = dict(state=1000, batches=6)


def log(text: str) -> None:
    print(f"[changelog-state {time.strftime('%H:%M:%S')}] {text}", flush=True)


def encode(obj: dict) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()  # as Spark's to_json writes it


def write_batch(spark, df, folder: Path, number: int) -> None:
    scratch = folder / f"tmp-{number}"
    df.coalesce(1).write.parquet(str(scratch))
    (part,) = scratch.glob("part-*.parquet")
    part.rename(folder / f"batch-{number:04d}.parquet")
    shutil.rmtree(scratch)


def make_source(spark, folder: Path, state: int, batches: int, seed: int = 15) -> int:
    """Micro-batch 0 inserts keys 0..state-1 (value {"id": k, "n": 0}); each later one changes BATCH_KEYS keys.
    Returns the live keys after the last micro-batch."""
    import datetime as dt

    from pyspark.sql import functions as F

    folder.mkdir(parents=True)
    first = spark.range(state).select(
        F.encode(F.to_json(F.struct("id")), "utf-8").alias("key"),
        F.encode(F.to_json(F.struct("id", F.lit(0).alias("n"))), "utf-8").alias("value"),
        F.lit("t").alias("topic"),
        F.lit(0).alias("partition"),
        F.col("id").alias("offset"),
        F.lit(dt.datetime(2024, 1, 1)).alias("timestamp"),
        F.lit(0).alias("timestampType"),
        F.array().cast("array<struct<key:string,value:binary>>").alias("headers"),
    )
    write_batch(spark, first, folder, 0)
    rng = random.Random(seed)
    live, version, new_key, offset = list(range(state)), {}, state, state
    for number in range(1, batches):
        rows = []
        picked = rng.sample(range(len(live)), BATCH_KEYS)
        kinds = [kind for kind, share in MIX for _ in range(round(share * BATCH_KEYS))]
        for kind, index in zip(kinds, picked):
            if kind == "insert":
                key = new_key
                new_key += 1
            else:
                key = live[index]
            if kind == "delete":
                value = None
            else:
                version[key] = version.get(key, 0) + (kind != "same")
                value = encode({"id": key, "n": version[key]})
            rows.append((encode({"id": key}), value, "t", 0, offset, dt.datetime(2024, 1, 1), 0, []))
            offset += 1
        deleted = {live[i] for kind, i in zip(kinds, picked) if kind == "delete"}
        live = [k for k in live if k not in deleted] + [r for r in range(new_key - kinds.count("insert"), new_key)]
        write_batch(spark, spark.createDataFrame(rows, designs.RAW_SCHEMA), folder, number)
    return len(live)


def tree_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) if folder.exists() else 0


class Meter:
    """Times each micro-batch's work: wall, CPU (JVM and its Python workers, plus this driver), load, state bytes."""

    def __init__(self, jvm_pid: int, state_folder: Path):
        self.jvm_pid, self.state_folder = jvm_pid, state_folder
        self.batches: list[dict] = []

    def cpu(self) -> float:
        from .run import tree_cpu_seconds

        return tree_cpu_seconds(self.jvm_pid) + time.process_time()

    def __call__(self, batch_id: int, work) -> None:
        cpu, wall = self.cpu(), time.perf_counter()
        events = work()
        wall, cpu = time.perf_counter() - wall, self.cpu() - cpu
        self.batches.append(
            {
                "batch": batch_id,
                "events": events,
                "wall_s": round(wall, 4),
                "cpu_s": round(cpu, 4),
                "load_1min": round(os.getloadavg()[0], 2),
                "state_bytes": tree_bytes(self.state_folder),
            }
        )


def spread(values: list[float]) -> dict:
    return {
        "min": min(values),
        "median": statistics.median(values),
        "max": max(values),
        "mean": statistics.fmean(values),
    }


def summarize(batches: list[dict], live_keys: int) -> dict:
    timed = [b for b in batches if b["batch"] > 0]
    return {
        "micro_batches_timed": len(timed),
        "wall_s": spread([b["wall_s"] for b in timed]),
        "cpu_s": spread([b["cpu_s"] for b in timed]),
        "load_1min": spread([b["load_1min"] for b in timed]),
        "events": sum(b["events"] for b in batches),
        "first_micro_batch_wall_s": batches[0]["wall_s"],
        "state_bytes_after_first": batches[0]["state_bytes"],
        "state_bytes_end": batches[-1]["state_bytes"],
        "state_bytes_max": max(b["state_bytes"] for b in timed),
        "live_keys_end": live_keys,
        "state_bytes_per_live_key_end": round(batches[-1]["state_bytes"] / live_keys, 1),
        "batches": batches,
    }


def ratios(small: dict, big: dict) -> dict:
    """The big state's micro-batch ÷ the small state's: of the medians, of the means, and micro-batch by
    micro-batch (the same micro-batch id)."""
    out = {
        f"{measure}_{stat}": round(big[measure][stat] / small[measure][stat], 3)
        for measure in ("wall_s", "cpu_s")
        for stat in ("median", "mean")
    }
    paired = [b["wall_s"] / s["wall_s"] for s, b in zip(small["batches"][1:], big["batches"][1:])]
    out["wall_s_paired"] = {k: round(v, 3) for k, v in spread(paired).items()}
    return out


def rotated(items: list, shift: int) -> list:
    shift %= len(items)
    return items[shift:] + items[:shift]


def run_native(spark, names: list[str], sources: dict, batches: int, work: Path, jvm_pid: int, job) -> dict:
    """The designs the bench drives itself, micro-batch by micro-batch, every (design, state size) taking its turn
    at each micro-batch id in a rotating order, so the host's load falls on all alike."""
    runs = [(name, state) for name in names for state in sources]
    states = {run: designs.job_state(spark, run[0], work / f"{run[0]}-{run[1]}", job) for run in runs}
    meters = {run: Meter(jvm_pid, Path(states[run].folder)) for run in runs}
    for batch_id in range(batches):
        for name, state in rotated(runs, batch_id):
            raw = spark.read.schema(designs.RAW_SCHEMA).parquet(
                str(sources[state][0] / f"batch-{batch_id:04d}.parquet")
            )
            meters[name, state](batch_id, lambda: states[name, state].apply(raw, batch_id).count())
        if batch_id % 10 == 0:
            log(f"micro-batch {batch_id} done")
    return {run: meter.batches for run, meter in meters.items()}


def run_state_store(spark, source: Path, work: Path, jvm_pid: int) -> list[dict]:
    meter = Meter(jvm_pid, work / "checkpoint" / "state")
    designs.run_state_store(spark, source, work, meter)
    return meter.batches


def session(with_delta: bool):
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("pipec-bench-changelog-state")
        .config("spark.driver.memory", "4g")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    if with_delta:
        builder = builder.config("spark.jars.packages", designs.DELTA_PACKAGE)
        for key, value in designs.DELTA_SESSION.items():
            builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def measure(args) -> dict:
    from pipec.testing.runner import load_job

    job = load_job(JOB)
    names = args.designs.split(",")
    spark = session("delta-lake" in names)
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    result: dict = {
        "settings": {
            "states": args.states,
            "batches": args.batches,
            "batch_keys": BATCH_KEYS,
            "state_store_states": args.state_store_states,
            "mix": dict(MIX),
            "compact_after": job.ChangelogState.COMPACT_AFTER,
        },
        "load_average_start": os.getloadavg(),
        "designs": {},
    }
    tmp = Path(tempfile.mkdtemp(prefix="pipec-bench-changelog-"))
    try:
        log(f"warm-up: deltas over {WARMUP['state']:,} keys, {WARMUP['batches']} micro-batches")
        make_source(spark, tmp / "warmup", WARMUP["state"], WARMUP["batches"])
        run_native(
            spark,
            ["deltas"],
            {WARMUP["state"]: (tmp / "warmup", 0)},
            WARMUP["batches"],
            tmp / "warmup-work",
            jvm_pid,
            job,
        )
        sources = {}
        for state in sorted(set(args.states) | (set(args.state_store_states) if "state-store" in names else set())):
            log(f"source: {state:,} keys, then {args.batches - 1} micro-batches of {BATCH_KEYS:,} changed keys")
            sources[state] = (tmp / f"source-{state}", make_source(spark, tmp / f"source-{state}", state, args.batches))
        native = [n for n in names if n != "state-store"]
        native_sources = {state: sources[state] for state in args.states}
        batches = run_native(spark, native, native_sources, args.batches, tmp, jvm_pid, job) if native else {}
        if "state-store" in names:
            for state in args.state_store_states:
                log(f"state-store: {state:,} keys in state")
                batches["state-store", state] = run_state_store(
                    spark, sources[state][0], tmp / f"store-{state}", jvm_pid
                )
        for name in names:
            runs = {str(state): summarize(b, sources[state][1]) for (n, state), b in batches.items() if n == name}
            entry = {"runs": runs}
            small, big = min(runs, key=int), max(runs, key=int)
            if small != big:
                entry["ratio"] = ratios(runs[small], runs[big])
                entry["ratio_of_states"] = [int(small), int(big)]
            for state, s in runs.items():
                log(
                    f"{name} {int(state):,}: first micro-batch {s['first_micro_batch_wall_s']:.1f} s; then wall median "
                    f"{s['wall_s']['median']:.2f} s, mean {s['wall_s']['mean']:.2f} s, max {s['wall_s']['max']:.2f} s; "
                    f"state {s['state_bytes_end']:,} bytes"
                )
            log(f"{name}: ratio {entry.get('ratio')}")
            result["designs"][name] = entry
        events = {
            (name, state): run["events"] for name, d in result["designs"].items() for state, run in d["runs"].items()
        }
        result["events_differ"] = {
            state: found
            for state in map(str, sources)
            if len(set((found := {n: e for (n, s), e in events.items() if s == state}).values())) > 1
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        spark.stop()
    result["load_average_end"] = os.getloadavg()
    return result


def headline(figures: dict) -> dict:
    """The shipped design's figures the targets read: `ratio` (mean wall, largest ÷ smallest state), and over the
    largest state the bytes per live key at the end and `state_bytes_max_vs_table`: the most bytes on disk after any
    micro-batch ÷ the bytes after the first one, when the state was one version holding the table (live keys
    stay about constant after it)."""
    shipped = figures["designs"].get("deltas", {})
    if "ratio" in shipped:
        big = shipped["runs"][str(shipped["ratio_of_states"][1])]
        figures["ratio"] = shipped["ratio"]["wall_s_mean"]
        figures["state_bytes_per_live_key"] = big["state_bytes_per_live_key_end"]
        figures["state_bytes_max_vs_table"] = round(big["state_bytes_max"] / big["state_bytes_after_first"], 3)
    return figures


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--states", default="1000,1000000", help="keys in state, comma-separated")
    parser.add_argument(
        "--batches",
        type=int,
        default=18,
        help="micro-batches per run, the first one included "
        "(18: one compaction cycle of the shipped design over 1M keys)",
    )
    parser.add_argument("--designs", default="deltas,rewrite,delta-lake,state-store")
    parser.add_argument(
        "--state-store-states",
        default="1000,100000",
        help="keys in state for the state-store design (it builds its state with a Python call per key)",
    )
    parser.add_argument(
        "--merge", type=Path, metavar="JSON", help="only merge a run's figures (out/changelog-state.json)"
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="merge into bench/results.json as changelog_state; rewrite docs/benchmarks.md",
    )
    args = parser.parse_args(argv)
    args.states = sorted(int(s) for s in args.states.split(","))
    args.state_store_states = sorted(int(s) for s in args.state_store_states.split(","))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.merge:
        write_results(headline(json.loads(args.merge.read_text(encoding="utf-8"))))
        return 0
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    started = time.perf_counter()
    figures = headline(measure(args))
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    figures["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {OUT.relative_to(ROOT)}")
    if figures["events_differ"]:
        log(f"the designs disagree on the number of events: {figures['events_differ']}")
        return 1
    if args.write:
        write_results(figures)
    return 0


def write_results(figures: dict) -> None:
    """Merges the figures into bench/results.json as `changelog_state` and rewrites docs/benchmarks.md."""
    from .results import merge

    merge("changelog_state", figures)


if __name__ == "__main__":
    raise SystemExit(main())
