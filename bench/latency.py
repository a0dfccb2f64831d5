"""End-to-end latency of a generated streaming job (issue 15): Kafka -> the payments example -> Kafka.

On the embedded broker (scripts/kafka), a producer sends payments at a steady rate (default 2,000 records/s for
60 s, after a warm-up) into a fresh 2-partition topic; the generated job (pipelines/payments_cleared.yaml,
compiled here with another trigger) runs in this process on local[2] and writes to a fresh output topic, which a
consumer reads from the start. A record's latency runs from its producer's timestamp (its send time, this
process's clock) to the moment the consumer sees its output. Where the time goes comes from each micro-batch's
progress (`durationMs`: planning the batch — latestOffset, getBatch, queryPlanning, walCommit — against running
it, addBatch, and commitOffsets), collected by a StreamingQueryListener.

Where a record's latency goes (bench/latency_legs.py): the broker's append times split it into legs, to the
broker, through the job and to the consumer; in the measured window, the GC pauses the Spark JVM and the broker
log (-Xlog:gc), the cores used by the Spark JVM, the broker, this process and everything else on the machine
(/proc), and the share of the window during which some task waited for a CPU (/proc/pressure/cpu). Each mode's
legs per second of sending go to out/latency-timeline-<mode>.json. Before the modes are measured, the first one
runs unmeasured for a minute (the JVM's warm-up).

Modes (name: pipeline variant, trigger):
  micro_batch            payments, no trigger: Spark's default (a micro-batch as soon as the last one ends)
  micro_batch_two_writes payments with `deadletterqueue.properties: {acks: all}` (Kafka's default since 3.0, so the
                         same producer), which sends dead letters through other producer options than the sink's:
                         the job persists each micro-batch and writes it twice through foreachBatch, as every
                         dead-letter job did before the sink's rows and the dead letters went out in one write
  micro_batch_observed_in payments as shipped but for its counts: its streaming query observes `in` after decoding
                         too, as before a micro-batch took it from numInputRows (issue 28's lever, A/B in one run)
  zero_interval          payments, "processing-time: 0 seconds" (the same Trigger.ProcessingTime(0) in Spark)
  micro_batch_stateless  payments without dead letters (errors: removed), Spark's default trigger
  real_time              payments without dead letters, `real-time: 5 seconds` (Spark 4.1+ real-time mode, which
                         runs no foreachBatch); a batch (checkpoint) every 5 s rather than the default 5 minutes,
                         so the run crosses batch boundaries, where new long-running tasks start, and reports
                         progress
  real_time_dead_letters payments as shipped, `real-time: 5 seconds`: its dead letters go out in the sink's write
  real_time_steady       payments without dead letters, `real-time: 5 minutes` (the default interval): no batch
                         ends inside the run, so its tail is the steady state's (GC, load, the producer)
  pass_through           the baseline (bench/handwritten_pass_through.py): Kafka to Kafka written by hand, each
                         record's key, value and headers as read, no chain; Spark's default trigger
  pass_through_real_time the same, `real-time: 5 seconds`
  micro_batch_<levers>   micro_batch and pass_through with bench/latency_levers.py's levers (async, rules,
  pass_through_<levers>  async_rules), each pair against the other in the same run; only when named in --modes

Each payments mode is also reported against the pass-through of the same trigger, when both ran: its p99 ÷ the
pass-through's p99 and its median micro-batch planning ÷ the pass-through's, per round (--rounds N runs every
mode N times, in turn, each round starting one mode later than the last, so that no mode always runs first: round
i of a mode against round i of its pass-through, minutes apart at most), as min/median/max over the rounds. A
mode's other figures are those of its round with the median p99.

    scripts/bench latency [--rate 2000] [--seconds 60] [--warmup 20] [--jvm-warmup 60] [--modes micro_batch,...] [--rounds 1]
                          [--write]
        (--write merges the figures into bench/results.json as `latency` and rewrites docs/benchmarks.md)

Starts two JVMs (the broker and Spark): run it under `jvm -2` where JVM slots are shared. Needs confluent-kafka
(the `test` extra).
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
import threading
import time
import uuid
from pathlib import Path

import yaml

from .latency_clients import Consumer, Progress, produce
from .latency_figures import _text, median_round, summary, where_the_time_goes
from .latency_legs import LEGS, Probes, appended, legs, percentile, timeline
from .latency_levers import COMBINATIONS, levers_applied

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "pipelines" / "payments_cleared.yaml"
OUT = (
    ROOT / "out" / "latency.json"
)  # every run's figures (git ignores out/); --write merges them into bench/results.json
OBSERVED_IN = "observed_in"  # the payments job with the observation its one-to-one decode no longer needs
MODES = {  # name -> (variant, --trigger (None: the job's default), levers (bench/latency_levers.py))
    "micro_batch": ("dead_letters", None, ()),
    "micro_batch_two_writes": ("two_writes", None, ()),
    "micro_batch_observed_in": (OBSERVED_IN, None, ()),
    "zero_interval": ("dead_letters", "processing-time: 0 seconds", ()),
    "micro_batch_stateless": ("stateless", None, ()),
    "real_time": ("stateless", "real-time: 5 seconds", ()),
    "real_time_dead_letters": ("dead_letters", "real-time: 5 seconds", ()),
    "real_time_steady": ("stateless", "real-time: 5 minutes", ()),
    "pass_through": ("pass_through", None, ()),
    "pass_through_real_time": ("pass_through", "real-time: 5 seconds", ()),
    **{  # issue 28's levers, each alone and together, on the payments job and on the pass-through alike
        f"{base}_{'_'.join(levers)}": (variant, None, levers)
        for levers in COMBINATIONS
        for base, variant in (("micro_batch", "dead_letters"), ("pass_through", "pass_through"))
    },
}
PASS_THROUGH = "pass_through"  # the variant written by hand: bench/handwritten_pass_through.py
WARMUP_S = 20.0  # seconds of records sent before the measured ones, once the query runs (--warmup; first batches)
JVM_WARMUP_S = 60.0  # a first mode's run before any is measured (--jvm-warmup)
DRAIN_S = 30.0  # how long to wait for the measured records' output after the last one is sent
SPARK_ARGS = ["--master", "local[2]", "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.ui.enabled=false"]


def log(text: str) -> None:
    print(f"[latency {time.strftime('%H:%M:%S')}] {text}", flush=True)


def load_variant(folder: Path, variant: str):
    """The pass-through written by hand, or the payments pipeline compiled (compile_variant)."""
    if variant == PASS_THROUGH:
        from . import handwritten_pass_through

        return handwritten_pass_through
    return compile_variant(folder, variant)


def compile_variant(folder: Path, variant: str):
    """The payments pipeline without its trigger (available-now) and tests; `stateless`: without `errors:`;
    `two_writes`: its dead letters through other producer options than the sink's (persist and two writes);
    `observed_in`: its streaming query observing `in` after decoding, as before a micro-batch took it from its
    numInputRows (issue 28)."""
    from pipec.project.driver import build_all, generate_all
    from pipec.testing.runner import load_job

    data = yaml.safe_load(PIPELINE.read_text(encoding="utf-8"))
    data.pop("tests", None)
    data["sink"].pop("trigger", None)
    if variant == "stateless":
        data.pop("errors", None)
    elif variant == "two_writes":
        data["errors"]["deadletterqueue.properties"] = {"acks": "all"}
    path = folder / f"payments_{variant}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    if variant == OBSERVED_IN:  # the plan before issue 28's lever: a streaming query observes `in` too
        assert "if counts and not counts.streaming:" in source
        source = source.replace("if counts and not counts.streaming:", "if counts:")
    job_file = folder / name
    job_file.write_text(source, encoding="utf-8")
    return load_job(job_file)


def run_mode(
    name: str, job, folder: Path, spark, progress: Progress, probes: Probes, bootstrap: str, admin, args
) -> dict:
    from confluent_kafka import Producer
    from confluent_kafka.admin import NewTopic

    variant, trigger, levers = MODES[name]
    tag = uuid.uuid4().hex[:8]
    topics = {k: f"latency-{k}-{tag}" for k in ("in", "out", "dlq")}
    append_time = {"message.timestamp.type": "LogAppendTime"}  # each record's time on the broker, for the legs
    for future in admin.create_topics([NewTopic(t, 2, 1, config=append_time) for t in topics.values()]).values():
        future.result(30)
    os.environ.update(PAYMENTS_TOPIC=topics["in"], PAYMENTS_OUT_TOPIC=topics["out"], PAYMENTS_DLQ_TOPIC=topics["dlq"])
    checkpoint = Path(tempfile.mkdtemp(prefix=f"checkpoint-{name}-", dir=folder))
    argv = ["--bootstrap-servers", bootstrap, "--checkpoint", str(checkpoint), *SPARK_ARGS]
    argv += ["--trigger", trigger] if trigger else []
    consumer = Consumer(bootstrap, topics["out"])
    consumer.start()
    outcome: dict = {}
    runner = threading.Thread(target=lambda: outcome.setdefault("exit", job.main(argv)), daemon=True)
    runner.start()
    deadline = time.time() + 120
    while not spark.streams.active and runner.is_alive() and time.time() < deadline:
        time.sleep(0.1)
    if not spark.streams.active:
        raise SystemExit(f"{name}: the job's query did not start (exit {outcome.get('exit')})")
    run = str(spark.streams.active[0].runId)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 1, "acks": "1"})
    warmup: dict[str, float] = {}
    produce(producer, topics["in"], "w", args.rate, args.warmup, warmup)
    sent: dict[str, float] = {}
    started = time.time()
    log(f"{name}: measuring {args.rate:,} records/s for {args.seconds:g} s (trigger {trigger or 'default'})")
    load_start = os.getloadavg()
    probes.begin()
    produce(producer, topics["in"], "m", args.rate, args.seconds, sent)
    sent_end = time.time()
    probed = probes.figures(started, sent_end)
    drain = sent_end + DRAIN_S
    while time.time() < drain and not all(p in consumer.seen for p in list(sent)[-200:]):
        time.sleep(0.1)
    time.sleep(1.0)  # stragglers of other partitions
    ended = time.time()
    for query in spark.streams.active:
        query.stop()
    runner.join(60)
    consumer.stopping.set()
    consumer.join(10)
    progress.settle(run)
    latencies = sorted(consumer.seen[p] - at for p, at in sent.items() if p in consumer.seen)
    if not latencies:
        raise SystemExit(f"{name}: no output seen")
    into = appended(bootstrap, topics["in"], set(sent))
    real_time = (trigger or "").startswith("real-time")
    batch_ends = [e[0] for e in progress.between(started - 10, ended, run)] if real_time else []
    figures = {
        "trigger": trigger or "default (Trigger.ProcessingTime(0): back to back)",
        "variant": variant,
        "levers": list(levers),
        "records": len(sent),
        "received": len(latencies),
        "send_rate_per_s": round(len(sent) / (sent_end - started), 1),
        "p50_s": round(percentile(latencies, 0.50), 4),
        "p95_s": round(percentile(latencies, 0.95), 4),
        "p99_s": round(percentile(latencies, 0.99), 4),
        "max_s": round(latencies[-1], 4),
        "mean_s": round(statistics.fmean(latencies), 4),
        "load_average": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        **where_the_time_goes(progress.between(started, ended, run)),
        "legs": legs(sent, into, consumer.appended, consumer.seen, batch_ends),
        **probed,
    }
    OUT.parent.mkdir(exist_ok=True)
    each_second = timeline(sent, into, consumer.appended, consumer.seen, probes.cpu.each_second)
    (OUT.parent / f"latency-timeline-{name}.json").write_text(json.dumps(each_second) + "\n", encoding="utf-8")
    log(
        f"{name}: p50 {figures['p50_s']:.3f} s, p95 {figures['p95_s']:.3f} s, p99 {figures['p99_s']:.3f} s, "
        f"max {figures['max_s']:.3f} s; {figures['received']:,} of {figures['records']:,} seen; "
        f"{figures.get('batches', 0)} micro-batches, planning {figures.get('planning_ms_median', '-')} ms, "
        f"addBatch {figures.get('add_batch_ms_median', '-')} ms (medians)"
    )
    split = figures["legs"]
    text = ", ".join(
        f"{leg} {split[leg]['p50_s']:.3f}/{split[leg]['p99_s']:.3f}/{split[leg]['tail_median_s']:.3f}"
        for leg in LEGS
        if leg in split
    )
    if "tail_near_batch_end" in split:
        text += (
            f"; tail near a batch end {split['tail_near_batch_end']:.0%} (such windows: "
            f"{split['near_batch_end_share_of_run']:.0%} of the run)"
        )
    log(
        f"{name}: legs (p50/p99/tail median s) {text}; GC {figures['gc']}, broker GC {figures['broker_gc']}; "
        f"cores used {figures['cpu_cores']}; some task waiting for a CPU {figures['cpu_waiting_share']} of the time"
    )
    return figures


def measure(args) -> dict:
    from confluent_kafka.admin import AdminClient

    state = Path(tempfile.mkdtemp(prefix="latency-kafka-"))
    folder = Path(tempfile.mkdtemp(prefix="latency-jobs-"))
    probes = Probes(folder, state)
    heap = os.environ.get("PIPEC_KAFKA_HEAP", "-Xms64m -Xmx512m")  # scripts/kafka's default
    env = {**os.environ, "PIPEC_KAFKA_DIR": str(state), "PIPEC_KAFKA_HEAP": f"{heap} {probes.broker_gc.option}"}
    started = subprocess.run([str(ROOT / "scripts" / "kafka"), "start"], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        raise SystemExit(f"scripts/kafka start failed:\n{started.stderr}")
    bootstrap = started.stdout.strip().splitlines()[-1]
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        jobs = {variant: load_variant(folder, variant) for variant in {MODES[m][0] for m in args.modes}}
        # the session as a compiled job makes it (its settings, packages): the pass-through runs in the same one
        first = next((jobs[v] for v in jobs if v != PASS_THROUGH), None) or compile_variant(folder, "stateless")
        jvm = ["--conf", f"spark.driver.extraJavaOptions={probes.spark_gc.option}"]
        spark = first.session(first.parse_args(["--bootstrap-servers", bootstrap, *SPARK_ARGS, *jvm]))
        progress = Progress()
        spark.streams.addListener(progress.listener)
        log(f"Spark {spark.version}, broker {bootstrap}")
        # The JVM's own warm-up (its JIT compiles Spark's planner and the record path over minutes, not seconds):
        # a first run of the first mode, not measured, so the first mode measured is not the slowest by order alone
        if args.jvm_warmup > 0:
            log(f"JVM warm-up: {args.modes[0]} for {args.jvm_warmup:g} s, not measured")
            warm = argparse.Namespace(**{**vars(args), "seconds": args.jvm_warmup})
            variant, _, levers = MODES[args.modes[0]]
            with levers_applied(spark, levers):
                run_mode(args.modes[0], jobs[variant], folder, spark, progress, probes, bootstrap, admin, warm)
        rounds: dict[str, list[dict]] = {name: [] for name in args.modes}
        for turn in range(args.rounds):
            shift = turn % len(args.modes)  # each round starts one mode later: no mode always runs first
            for name in args.modes[shift:] + args.modes[:shift]:
                if args.rounds > 1:
                    log(f"round {turn + 1} of {args.rounds}: {name}")
                try:
                    with levers_applied(spark, MODES[name][2]):
                        figures = run_mode(
                            name, jobs[MODES[name][0]], folder, spark, progress, probes, bootstrap, admin, args
                        )
                except Exception as exc:  # a mode that cannot run here is reported, the others still run
                    figures = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
                    log(f"{name}: failed: {figures['error']}")
                rounds[name].append(figures)
        modes = {name: median_round(runs) for name, runs in rounds.items()}
        against = {name: ratios for name in args.modes if (ratios := against_pass_through(name, rounds))}
        for name, ratios in against.items():
            planning = ratios.get("planning_ms")
            log(
                f"{name} ÷ {ratios['baseline']}: p99 {_text(ratios['p99_s']['ratio'])}, planning "
                f"{_text(planning['ratio']) if planning else '-'}"
            )
        return {
            "spark": spark.version,
            "rate_per_s": args.rate,
            "seconds": args.seconds,
            "warmup_s": args.warmup,
            "jvm_warmup_s": args.jvm_warmup,
            "rounds": args.rounds,
            **modes,
            "against_pass_through": against,
        }
    finally:
        subprocess.run([str(ROOT / "scripts" / "kafka"), "stop"], env=env, capture_output=True)
        for made in (folder, state):  # the jobs, their checkpoints and logs; the broker's data
            shutil.rmtree(made, ignore_errors=True)


def against_pass_through(name: str, rounds: dict[str, list[dict]]) -> dict | None:
    """A payments mode against the pass-through of its trigger in the same run, round by round: p99 ÷ p99 and
    median planning ÷ median planning (None when either did not run)."""
    variant, trigger, levers = MODES[name]
    baseline = next((m for m, (v, t, l) in MODES.items() if v == PASS_THROUGH and (t, l) == (trigger, levers)), None)
    if variant == PASS_THROUGH or baseline not in rounds:
        return None
    pairs = [(job, base) for job, base in zip(rounds[name], rounds[baseline]) if "p99_s" in job and "p99_s" in base]
    if not pairs:
        return None
    planned = [(job, base) for job, base in pairs if job.get("planning_ms_median") and base.get("planning_ms_median")]

    def each(read, among=pairs) -> dict:  # over the rounds: the job's figure ÷ the pass-through's, and both
        return {
            "ratio": summary([read(job) / read(base) for job, base in among]),
            "job": summary([read(job) for job, _ in among]),
            "pass_through": summary([read(b) for _, b in among]),
        }

    figures = {
        "baseline": baseline,
        "rounds": len(pairs),
        "p99_s": each(lambda r: r["p99_s"]),
        "load_1min": summary([x["load_average"][0] for pair in pairs for x in pair]),
    }
    if planned:  # real-time mode: no batch may have ended in a short run
        figures["planning_ms"] = each(lambda r: r["planning_ms_median"], planned)
    return figures


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench latency", description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=int, default=2000, help="records per second (default 2000)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to send at that rate (default 60)")
    parser.add_argument(
        "--warmup",
        type=float,
        default=WARMUP_S,
        help=f"seconds sent unmeasured once each mode's query runs ({WARMUP_S:g})",
    )
    parser.add_argument(
        "--jvm-warmup",
        type=float,
        default=JVM_WARMUP_S,
        help=f"seconds of the first mode run unmeasured first (default {JVM_WARMUP_S:g}; 0: none)",
    )
    plain = [m for m, (_, _, levers) in MODES.items() if not levers]  # the default: every mode without a lever
    parser.add_argument("--modes", default=",".join(plain), help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every mode this many times, in turn (min/median/max against the pass-through)",
    )
    parser.add_argument(
        "--write", action="store_true", help="merge into bench/results.json as latency; rewrite docs/benchmarks.md"
    )
    args = parser.parse_args(argv)
    args.modes = [m for m in args.modes.split(",") if m]
    unknown = set(args.modes) - set(MODES)
    if unknown:
        parser.error(f"unknown modes: {', '.join(sorted(unknown))}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    started = time.perf_counter()
    figures = measure(args)
    figures["wall_s"] = round(time.perf_counter() - started, 1)
    figures["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    figures["cores"] = os.cpu_count()
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {OUT.relative_to(ROOT)}")
    if args.write:
        write_results(figures)
    return 0


def write_results(figures: dict) -> None:
    """Merges the figures into bench/results.json as `latency` and rewrites docs/benchmarks.md."""
    from .results import merge

    merge("latency", figures)


if __name__ == "__main__":
    sys.exit(main())
