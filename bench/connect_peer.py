"""The compiled job against the peer users would otherwise run: Kafka Connect's own classes (issue 14, target 3).

The same records (bench/generate.py, Kafka-shaped: key, value, headers, topic, partition, offset, timestamp) go
through bench/chain.yaml twice, per core:
  connect          bench/ConnectPeer.java: JsonConverter (schemaless) in, SimpleHeaderConverter, Kafka Connect's
                   transform and predicate classes, JsonConverter out to bytes, in ONE thread of its own JVM (the
                   JVM options connect-distributed.sh starts a worker with); CPU time of that thread (ThreadMXBean)
  generated        the compiled job's `transform` at local[1] into Spark's `noop` sink, over the records cached,
                   with the job's own session settings and JVM options; CPU time of the Spark JVM
  generated_as_is  the same for bench/chain.yaml as written (reference: the order and header column of the main
                   benchmark's chain)
`connect` and `generated` run bench/peer_side.py's `peer_chain` (Flatten first, masking `customer_card`, no header
column: what Kafka 4.x's classes can run), and their outputs are compared record by record first
(bench/peer_compare.py). Then the variants alternate, in a rotating order, for --reps rounds after --warmups, and
the peer also times its converters alone (`convert`: the share of its time outside the chain). Records per second
per core = records ÷ CPU seconds (the one thread's, the Spark JVM's); the ratio is generated ÷ connect, per round.
Then bench/peer_profile.py cuts the generated job (after the scan, the decode, the chain, the encode), lists its
whole-stage codegen stages and interpreted expressions and (unless --no-jfr) takes Java Flight Recorder samples of
one pass of each side; with --what-if, bench/peer_whatif.py times variants of the job edited by hand.

    scripts/bench connect-peer [--records 1000000] [--reps 5] [--warmups 2] [--check 5000] [--no-jfr] [--what-if]
                               [--write]
        (--write merges the figures into bench/results.json as `connect_peer` and rewrites docs/benchmarks.md)

Starts two JVMs (Spark and the peer; javac before them): run it as `/work/bin/jvm -2 scripts/bench connect-peer`
where JVM slots are shared.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

from .peer_side import CHAIN, Peer, compile_peer, export_records, kafka_classpath, peer_chain, write_pipeline

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "out" / "connect-peer.json"  # every run's figures (git ignores out/); --write merges them
VARIANTS = ("connect", "generated", "generated_as_is")
GENERATED = ("generated", "generated_as_is")


def log(text: str) -> None:
    print(f"[connect-peer {time.strftime('%H:%M:%S')}] {text}", flush=True)


def spark_pass(df, jvm_pid: int) -> dict:
    """One write of `df` to the noop sink: wall and the Spark JVM's CPU seconds."""
    from .run import noop, tree_cpu_seconds

    load = os.getloadavg()[0]
    cpu0, t0 = tree_cpu_seconds(jvm_pid, False), time.perf_counter()
    noop(df)
    return {"wall_s": time.perf_counter() - t0, "cpu_s": tree_cpu_seconds(jvm_pid, False) - cpu0, "load_1min": load}


def peer_pass(peer: Peer, command: str = "pass") -> dict:
    """One pass of the peer over every record: its thread's CPU seconds as `cpu_s`, the JVM's as `process_cpu_s`."""
    load = os.getloadavg()[0]
    answer = peer.ask(command)
    if answer["errors"]:
        raise SystemExit(f"ConnectPeer failed {answer['errors']:,} records: the chain does not run in Kafka Connect")
    return {
        "wall_s": answer["wall_s"],
        "cpu_s": answer["thread_cpu_s"],
        "process_cpu_s": answer["process_cpu_s"],
        "gc_s": answer["gc_s"],
        "written": answer["written"],
        "dropped": answer["dropped"],
        "bytes_out": answer["bytes_out"],
        "load_1min": load,
    }


def check_equal(spark, job, peer: Peer, records: int, delimiter: str) -> dict:
    """The first `records` records through both sides: the same records out (bench/peer_compare.py)."""
    from .generate import kafka_records
    from .peer_compare import compare

    raw = kafka_records(spark, records)
    chained = job.chain(job.decode(raw))
    problems, seen = compare(
        peer.dump(records), job.transform(raw).collect(), chained.schema["value"].dataType, delimiter
    )
    if problems:
        raise SystemExit("connect-peer: Kafka Connect and the compiled job differ:\n" + "\n".join(problems[:10]))
    return {"records": records, **seen}


def alternate(frames: dict, peer: Peer, jvm_pid: int, reps: int, warmups: int) -> dict:
    """Warm-up passes of each variant, then `reps` rounds in a rotating order."""

    def one(name: str) -> dict:
        return peer_pass(peer) if name == "connect" else spark_pass(frames[name], jvm_pid)

    for _ in range(warmups):
        for name in VARIANTS:
            one(name)
    runs: dict[str, list] = {name: [] for name in (*VARIANTS, "connect_converters")}
    for rep in range(reps):
        order = VARIANTS[rep % len(VARIANTS) :] + VARIANTS[: rep % len(VARIANTS)]
        for name in order:
            runs[name].append(one(name))
            r = runs[name][-1]
            log(f"round {rep + 1}/{reps} {name}: {r['wall_s']:.2f} s wall, {r['cpu_s']:.2f} CPU s")
        runs["connect_converters"].append(peer_pass(peer, "convert"))
    return runs


def figures(runs: dict, records: int) -> dict:
    """Per variant: records/s (wall) and records per CPU second (per core); ratios generated ÷ connect per round."""
    from .compiler_speed import summary

    def rate(key: str, runs_of: list) -> dict:
        return summary([records / r[key] for r in runs_of])

    out = {
        "per_core": {name: rate("cpu_s", runs[name]) for name in runs},
        "records_per_s": {name: rate("wall_s", runs[name]) for name in runs},
        "connect_per_process_cpu_s": rate("process_cpu_s", runs["connect"]),
    }
    ratios = {}
    for name in GENERATED:
        pairs = list(zip(runs[name], runs["connect"]))
        ratios[name] = {
            "cpu": summary([c["cpu_s"] / g["cpu_s"] for g, c in pairs]),
            "wall": summary([c["wall_s"] / g["wall_s"] for g, c in pairs]),
            "cpu_whole_jvm": summary([c["process_cpu_s"] / g["cpu_s"] for g, c in pairs]),
        }
    out["ratio"] = ratios
    out["converters_share"] = summary(
        [c["cpu_s"] / p["cpu_s"] for c, p in zip(runs["connect_converters"], runs["connect"])]
    )
    return out


def measure(args) -> dict:
    from pipec.emit.job import JVM_OPTIONS

    from .generate import kafka_records
    from .peer_profile import profile
    from .plans import compile_job
    from .run import session

    spark = session(args.driver_memory, JVM_OPTIONS, "local[1]")
    jvm_pid = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    result: dict = {
        "spark": spark.version,
        "master": "local[1]",
        "records": args.records,
        "reps": args.reps,
        "warmups": args.warmups,
        "kafka": None,
    }
    with tempfile.TemporaryDirectory(prefix="pipec-connect-peer-") as tmp:
        folder = Path(tmp)
        chain = yaml.safe_load(CHAIN.read_text(encoding="utf-8"))
        doc = peer_chain(chain)
        delimiter = next(s.get("delimiter", ".") for s in doc["transforms"] if s["type"] == "Flatten$Value")
        job = compile_job(write_pipeline(doc, folder), folder)
        as_is = compile_job(CHAIN, folder)
        for key, value in job.SESSION_CONF.items():
            spark.conf.set(key, value)
        log(f"generating {args.records:,} records, cached, and exported for the peer")
        raw = kafka_records(spark, args.records).cache()
        raw.count()
        export_records(raw, folder / "records")
        classpath = kafka_classpath()
        classes = compile_peer(classpath, folder / "classes")
        frames = {"generated": job.transform(raw), "generated_as_is": as_is.transform(raw)}
        with Peer(classes, classpath, folder / "records", doc) as peer:
            result["kafka"] = peer.version
            log(f"comparing the first {args.check:,} records' outputs")
            result["equality"] = check_equal(spark, job, peer, min(args.check, args.records), delimiter)
            log(f"outputs equal: {result['equality']}")
            result["load_average_start"] = list(os.getloadavg())
            runs = alternate(frames, peer, jvm_pid, args.reps, args.warmups)
            result["load_average_end"] = list(os.getloadavg())
            result["runs"] = runs
            result.update(figures(runs, args.records))
            if args.what_if:
                from .peer_whatif import what_if

                log("timing the job's variants edited by hand (bench/peer_whatif.py)")
                (folder / "whatif").mkdir()
                result["what_if"] = what_if(doc, raw, jvm_pid, args.profile_reps, folder / "whatif")
            if args.profile:
                log("profiling the generated job (cuts, codegen" + (", JFR)" if args.jfr else ")"))
                result["profile"] = profile(
                    spark, job, raw, jvm_pid, peer if args.jfr else None, args.profile_reps, folder
                )
        raw.unpersist()
    spark.stop()
    return result


def summary_lines(r: dict) -> list[str]:
    lines = [
        f"== Kafka Connect {r['kafka']} peer against the compiled job ({r['records']:,} records, {r['reps']} rounds; "
        f"load {r['load_average_start'][0]:.1f} -> {r['load_average_end'][0]:.1f}) =="
    ]
    for name in (*VARIANTS, "connect_converters"):
        c, w = r["per_core"][name], r["records_per_s"][name]
        lines.append(
            f"{name:>19}: {c['median']:>9,.0f} records per CPU s (min {c['min']:,.0f}, max {c['max']:,.0f}); "
            f"{w['median']:,.0f} records/s wall"
        )
    for name in GENERATED:
        q = r["ratio"][name]
        lines.append(
            f"{name} ÷ connect per core: median {q['cpu']['median']:.3f} (min {q['cpu']['min']:.3f}, "
            f"max {q['cpu']['max']:.3f}) by CPU time; {q['wall']['median']:.3f} by wall; "
            f"{q['cpu_whole_jvm']['median']:.3f} against the peer's whole JVM"
        )
    lines.append(f"connect: converters alone {r['converters_share']['median']:.0%} of its CPU time")
    return lines


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench connect-peer", description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=5, help="timed rounds (default 5)")
    parser.add_argument("--warmups", type=int, default=2, help="untimed rounds first (JIT, heap; default 2)")
    parser.add_argument("--check", type=int, default=5000, help="records whose outputs are compared (default 5000)")
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--no-profile", dest="profile", action="store_false", help="skip the job's cuts and codegen")
    parser.add_argument("--profile-reps", type=int, default=3, help="timed rounds of the cuts (default 3)")
    parser.add_argument(
        "--no-jfr",
        dest="jfr",
        action="store_false",
        help="skip the Java Flight Recorder samples of one pass of each side",
    )
    parser.add_argument(
        "--what-if",
        action="store_true",
        help="also time variants of the job edited by hand (bench/peer_whatif.py; about 5 minutes)",
    )
    parser.add_argument(
        "--write", action="store_true", help="merge into bench/results.json as connect_peer; rewrite docs/benchmarks.md"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ["TZ"] = "UTC"
    started = time.perf_counter()
    result = measure(args)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    result["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    result["cores"] = os.cpu_count()
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {OUT.relative_to(ROOT)}")
    print("\n".join(summary_lines(result)))
    if args.write:
        from .results import merge

        merge("connect_peer", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
