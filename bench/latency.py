"""End-to-end latency of a generated streaming job (issue 15): Kafka -> the payments example -> Kafka.

On the embedded broker (scripts/kafka), a producer sends payments at a steady rate (default 2,000 records/s for
60 s, after a warm-up) into a fresh 2-partition topic; the generated job (pipelines/payments_cleared.yaml,
compiled here with another trigger) runs in this process on local[2] and writes to a fresh output topic, which a
consumer reads from the start. A record's latency runs from its producer's timestamp (its send time, this
process's clock) to the moment the consumer sees its output. Where the time goes comes from each micro-batch's
progress (`durationMs`: planning the batch — latestOffset, getBatch, queryPlanning, walCommit — against running
it, addBatch, and commitOffsets), collected by a StreamingQueryListener.

Modes (name: pipeline variant, trigger):
  micro_batch            payments, no trigger: Spark's default (a micro-batch as soon as the last one ends)
  zero_interval          payments, "processing-time: 0 seconds" (the same Trigger.ProcessingTime(0) in Spark)
  micro_batch_stateless  payments without dead letters (errors: removed), Spark's default trigger
  real_time              payments without dead letters, `real-time: 5 seconds` (Spark 4.1+ real-time mode, which
                         runs no foreachBatch: the dead-letter split is refused, E513); a batch (checkpoint) every
                         5 s rather than the default 5 minutes, so the run crosses batch boundaries, where new
                         long-running tasks start, and reports progress

    scripts/bench latency [--rate 2000] [--seconds 60] [--modes micro_batch,...] [--write]
        (--write merges the figures into bench/results.json as `latency` and rewrites docs/benchmarks.md)

Starts two JVMs (the broker and Spark): run it under `jvm -2` where JVM slots are shared. Needs confluent-kafka
(the `test` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ROOT / "pipelines" / "payments_cleared.yaml"
OUT = ROOT / "out" / "latency.json"  # every run's figures (git ignores out/); --write merges them into bench/results.json
MODES = {  # name -> (dead letters kept, --trigger; None: the job's default)
    "micro_batch": (True, None),
    "zero_interval": (True, "processing-time: 0 seconds"),
    "micro_batch_stateless": (False, None),
    "real_time": (False, "real-time: 5 seconds"),
}
WARMUP_S = 20.0  # records sent before the measured ones, once the query runs (JIT, connections, first batches)
DRAIN_S = 30.0  # how long to wait for the measured records' output after the last one is sent
PLANNING = ("latestOffset", "getBatch", "queryPlanning", "walCommit")  # durationMs parts before the batch runs
SPARK_ARGS = ["--master", "local[2]", "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.ui.enabled=false"]


def log(text: str) -> None:
    print(f"[latency {time.strftime('%H:%M:%S')}] {text}", flush=True)


def compile_variant(folder: Path, dead_letters: bool):
    """The payments pipeline without its trigger (available-now) and tests, and without `errors:` unless kept."""
    from compiler.project import build_all, generate_all
    from compiler.testing.runner import load_job

    data = yaml.safe_load(PIPELINE.read_text(encoding="utf-8"))
    data.pop("tests", None)
    data["sink"].pop("trigger", None)
    if not dead_letters:
        data.pop("errors", None)
    path = folder / f"payments_{'dlq' if dead_letters else 'stateless'}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    job_file = folder / name
    job_file.write_text(source, encoding="utf-8")
    return load_job(job_file)


class Progress:
    """A StreamingQueryListener's record of each micro-batch's progress: (time received, batch, rows, durationMs)."""

    def __init__(self):
        from pyspark.sql.streaming import StreamingQueryListener

        events = self.events = []

        class Listener(StreamingQueryListener):
            def onQueryStarted(self, event):
                pass

            def onQueryProgress(self, event):
                p = event.progress
                events.append((time.time(), p.batchId, p.numInputRows, dict(p.durationMs)))

            def onQueryIdle(self, event):
                pass

            def onQueryTerminated(self, event):
                pass

        self.listener = Listener()

    def between(self, start: float, end: float) -> list[tuple]:
        return [e for e in self.events if start <= e[0] <= end]


class Consumer(threading.Thread):
    """Reads a topic from the start; payment_id -> when its output was first seen."""

    def __init__(self, bootstrap: str, topic: str):
        super().__init__(daemon=True)
        from confluent_kafka import OFFSET_BEGINNING, Consumer as KafkaConsumer, TopicPartition

        self.consumer = KafkaConsumer({"bootstrap.servers": bootstrap, "group.id": f"latency-{uuid.uuid4().hex}",
                                       "enable.auto.commit": False, "fetch.wait.max.ms": 5})
        self.consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in (0, 1)])
        self.seen: dict[str, float] = {}
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            for message in self.consumer.consume(num_messages=1000, timeout=0.05):
                if message.error() is None:
                    at = time.time()
                    self.seen.setdefault(json.loads(message.value())["payment_id"], at)
        self.consumer.close()


def produce(producer, topic: str, prefix: str, rate: int, seconds: float, sent: dict[str, float]) -> None:
    """Send rate records/s for `seconds`, paced against the clock; each one's send time goes into `sent`."""
    start, count = time.time(), 0
    while (now := time.time()) < start + seconds:
        due = int((now - start) * rate) - count
        for _ in range(due):
            payment = f"{prefix}{count}"
            value = {"payment_id": payment, "account": f"acc-{count % 100}", "amount": 12.5, "card": "4111"}
            sent[payment] = time.time()
            producer.produce(topic, key=payment.encode(), value=json.dumps(value).encode(),
                             headers=[("source", b"bench")])
            count += 1
        producer.poll(0)
        time.sleep(0.001)
    producer.flush(10)


def percentile(sorted_values: list[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


def where_the_time_goes(events: list[tuple]) -> dict:
    """Medians over the micro-batches (with rows) of their durationMs parts, planning against running."""
    batches = [e for e in events if e[2] > 0]
    if not batches:
        return {"batches": 0}
    parts = sorted({k for e in batches for k in e[3]})
    median = {k: statistics.median(e[3].get(k, 0) for e in batches) for k in parts}
    return {
        "batches": len(batches),
        "rows_per_batch_median": statistics.median(e[2] for e in batches),
        "duration_ms_median": median,
        "planning_ms_median": statistics.median(sum(e[3].get(k, 0) for k in PLANNING) for e in batches),
        "add_batch_ms_median": median.get("addBatch", 0),
        "trigger_ms_median": median.get("triggerExecution", 0),
    }


def run_mode(name: str, job, spark, progress: Progress, bootstrap: str, admin, args) -> dict:
    from confluent_kafka import Producer
    from confluent_kafka.admin import NewTopic

    dead_letters, trigger = MODES[name]
    tag = uuid.uuid4().hex[:8]
    topics = {k: f"latency-{k}-{tag}" for k in ("in", "out", "dlq")}
    for future in admin.create_topics([NewTopic(t, 2, 1) for t in topics.values()]).values():
        future.result(30)
    os.environ.update(PAYMENTS_TOPIC=topics["in"], PAYMENTS_OUT_TOPIC=topics["out"], PAYMENTS_DLQ_TOPIC=topics["dlq"])
    checkpoint = Path(tempfile.mkdtemp(prefix=f"latency-{name}-"))
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
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 1, "acks": "1"})
    warmup: dict[str, float] = {}
    produce(producer, topics["in"], "w", args.rate, WARMUP_S, warmup)
    sent: dict[str, float] = {}
    started = time.time()
    log(f"{name}: measuring {args.rate:,} records/s for {args.seconds:g} s (trigger {trigger or 'default'})")
    load_start = os.getloadavg()
    produce(producer, topics["in"], "m", args.rate, args.seconds, sent)
    sent_end = time.time()
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
    latencies = sorted(consumer.seen[p] - at for p, at in sent.items() if p in consumer.seen)
    if not latencies:
        raise SystemExit(f"{name}: no output seen")
    figures = {
        "trigger": trigger or "default (Trigger.ProcessingTime(0): back to back)",
        "dead_letters": dead_letters,
        "records": len(sent),
        "received": len(latencies),
        "send_rate_per_s": round(len(sent) / (sent_end - started), 1),
        "p50_s": round(percentile(latencies, 0.50), 4),
        "p95_s": round(percentile(latencies, 0.95), 4),
        "p99_s": round(percentile(latencies, 0.99), 4),
        "max_s": round(latencies[-1], 4),
        "mean_s": round(statistics.fmean(latencies), 4),
        "load_average": [round(x, 2) for x in load_start],
        **where_the_time_goes(progress.between(started, ended)),
    }
    log(f"{name}: p50 {figures['p50_s']:.3f} s, p95 {figures['p95_s']:.3f} s, p99 {figures['p99_s']:.3f} s, "
        f"max {figures['max_s']:.3f} s; {figures['received']:,} of {figures['records']:,} seen; "
        f"{figures.get('batches', 0)} micro-batches, planning {figures.get('planning_ms_median', '-')} ms, "
        f"addBatch {figures.get('add_batch_ms_median', '-')} ms (medians)")
    return figures


def measure(args) -> dict:
    from confluent_kafka.admin import AdminClient

    state = Path(tempfile.mkdtemp(prefix="latency-kafka-"))
    env = {**os.environ, "PIPEC_KAFKA_DIR": str(state)}
    started = subprocess.run([str(ROOT / "scripts" / "kafka"), "start"], env=env, capture_output=True, text=True)
    if started.returncode != 0:
        raise SystemExit(f"scripts/kafka start failed:\n{started.stderr}")
    bootstrap = started.stdout.strip().splitlines()[-1]
    try:
        admin = AdminClient({"bootstrap.servers": bootstrap})
        folder = Path(tempfile.mkdtemp(prefix="latency-jobs-"))
        jobs = {kept: compile_variant(folder, kept) for kept in {MODES[m][0] for m in args.modes}}
        first = jobs[MODES[args.modes[0]][0]]
        spark = first.session(first.parse_args(["--bootstrap-servers", bootstrap, *SPARK_ARGS]))
        progress = Progress()
        spark.streams.addListener(progress.listener)
        log(f"Spark {spark.version}, broker {bootstrap}")
        modes = {}
        for name in args.modes:
            try:
                modes[name] = run_mode(name, jobs[MODES[name][0]], spark, progress, bootstrap, admin, args)
            except Exception as exc:  # a mode that cannot run here is reported, the others still run
                modes[name] = {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"}
                log(f"{name}: failed: {modes[name]['error']}")
        return {"spark": spark.version, "rate_per_s": args.rate, "seconds": args.seconds, "warmup_s": WARMUP_S, **modes}
    finally:
        subprocess.run([str(ROOT / "scripts" / "kafka"), "stop"], env=env, capture_output=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="scripts/bench latency", description=__doc__.split("\n")[0])
    parser.add_argument("--rate", type=int, default=2000, help="records per second (default 2000)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to send at that rate (default 60)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--write", action="store_true",
                        help="merge into bench/results.json as latency; rewrite docs/benchmarks.md")
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
