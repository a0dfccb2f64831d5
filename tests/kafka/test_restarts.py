"""Restarts survive SIGKILL (SPEC section 7, Delivery): a generated streaming job, run as `python job.py` against the
real broker while records keep arriving, is SIGKILLed three times at different points of its micro-batches and
restarted from its checkpoint each time, then run to the end with `--trigger available-now`.

files sink: exactly once through the checkpoint (the output, read through the sink's metadata log, equals the
input as a multiset of ids). kafka sink: at least once (every input id is in the output topic; duplicates are
counted and printed). Each kill is printed with where it landed; run with -s to see the figures.
"""

from __future__ import annotations

import json
import re
import textwrap
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from confluent_kafka import TopicPartition
from confluent_kafka.admin import OffsetSpec
from killable_job import Checkpoint, JobProcess, KillReport, job_env
from pipec.project.driver import build_all, generate_all

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

PIPELINE = """\
    version: 1
    name: {name}
    mode: streaming
    source:
      connector: kafka
      topics: ["${{env:RESTART_IN_TOPIC}}"]
      properties: {{bootstrap.servers: "${{env:KAFKA_BOOTSTRAP_SERVERS}}"}}
      key: {{format: json, fields: [id]}}
      value: {{format: json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
    transforms:
      - name: tag
        type: InsertField$Value
        offset.field: src_offset
    sink:
{sink}
      checkpoint: ${{env:CHECKPOINT_DIR}}/{name}
      trigger: "processing-time: 1 second"
"""

SINKS = {
    "files": """\
      connector: files
      path: ${env:OUT_DIR}/out
      format: json""",
    "kafka": """\
      connector: kafka
      topic: ${env:RESTART_OUT_TOPIC}
      value: {format: json}""",
}

# (how, where): the driver alone or the whole process group; as soon as a batch is planned, while a batch in
# flight writes its output, or just after a batch committed.
KILLS = [("driver", "planned"), ("group", "writing"), ("driver", "committed")]
SPARK_ARGS = ["--master", "local[2]", "--conf", "spark.sql.shuffle.partitions=2", "--conf", "spark.ui.enabled=false"]
RUN_TIMEOUT_S = 120


class Producer(threading.Thread):
    """Produces records with ids 0, 1, 2, ... in small chunks until stopped (the job runs meanwhile)."""

    def __init__(self, kafka_client, topic: str, chunk: int = 10, pause_s: float = 0.1):
        super().__init__(daemon=True)
        self.kafka_client, self.topic, self.chunk, self.pause_s = kafka_client, topic, chunk, pause_s
        self.sent = 0
        self.error: BaseException | None = None
        self._stop_flag = threading.Event()

    def produce_chunk(self) -> None:
        ids = range(self.sent, self.sent + self.chunk)
        self.kafka_client.produce(
            self.topic, [{"key": json.dumps({"id": i}), "value": json.dumps({"id": i, "name": f"n{i}"})} for i in ids]
        )
        self.sent += self.chunk

    def run(self) -> None:
        try:
            while not self._stop_flag.is_set():
                self.produce_chunk()
                time.sleep(self.pause_s)
        except BaseException as exc:  # reported by stop()
            self.error = exc

    def stop(self) -> int:
        self._stop_flag.set()
        self.join(timeout=60)
        assert self.error is None, f"producing failed: {self.error!r}"
        return self.sent


def compile_job(tmp_path: Path, name: str, sink: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(PIPELINE.format(name=name, sink=SINKS[sink])), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((filename, source),) = generate_all(result).items()
    job_file = tmp_path / filename
    job_file.write_text(source, encoding="utf-8")
    return job_file


def kill_at(job: JobProcess, checkpoint: Checkpoint, how: str, where: str, written) -> KillReport:
    """Wait for the kill point in this run's own micro-batches, then SIGKILL.

    planned: a batch this run planned is in flight (its offsets written, no commit yet); writing: a batch in
    flight whose output has started to appear (written() grew since it was planned); committed: just after this
    run committed a batch (between batches)."""
    planned, committed = checkpoint.latest("offsets"), checkpoint.latest("commits")
    if where == "committed":
        checkpoint.wait_until(lambda: checkpoint.latest("commits") > committed, job, what="a commit of this run")
    elif where == "planned":
        checkpoint.wait_until(
            lambda: checkpoint.latest("offsets") > planned and checkpoint.in_flight(), job, what="a planned micro-batch"
        )
    else:
        before = written()
        checkpoint.wait_until(
            lambda: checkpoint.in_flight() and written() > before, job, what="output of a batch in flight"
        )
    return job.kill(how, checkpoint)


def batch_counts(output: str, name: str) -> dict[int, tuple[int, int]]:
    """The job's own per-micro-batch lines: batch id -> (in, written)."""
    lines = re.findall(rf"^\[{name}\] micro-batch (\d+): in=(\d+) written=(\d+)", output, re.MULTILINE)
    return {int(b): (int(i), int(w)) for b, i, w in lines}


def run_with_kills(
    tmp_path: Path, kafka_bootstrap: str, kafka_client, sink: str, extra_env: dict[str, str], written
) -> dict:
    """Produce while the job runs; kill it at each KILLS point and restart; finish with available-now."""
    name = f"restart_{sink}"
    job_file = compile_job(tmp_path, name, sink)
    topic = kafka_client.create_topic(f"restart-in-{uuid.uuid4().hex[:8]}", partitions=2)
    env = job_env(
        {
            "RESTART_IN_TOPIC": topic,
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
            "CHECKPOINT_DIR": str(tmp_path / "ck"),
            **extra_env,
        }
    )
    checkpoint = Checkpoint(tmp_path / "ck" / name)
    producer = Producer(kafka_client, topic)
    producer.produce_chunk()  # the first batch has records
    producer.start()
    kills: list[KillReport] = []
    runs: list[JobProcess] = []
    try:
        for number, (how, where) in enumerate(KILLS):
            job = JobProcess(job_file, SPARK_ARGS, env, tmp_path / f"run{number}.log")
            runs.append(job)
            kills.append(kill_at(job, checkpoint, how, where, written))
        produced = producer.stop()
        final = JobProcess(job_file, [*SPARK_ARGS, "--trigger", "available-now"], env, tmp_path / "final.log")
        runs.append(final)
        code = final.wait(RUN_TIMEOUT_S)
        assert code == 0, f"the final run failed (exit {code}):\n{final.output()[-4000:]}"
    finally:
        if producer.is_alive():
            producer.stop()
        for job in runs:
            job.ensure_dead()
    reported: dict[int, tuple[int, int]] = {}
    for job in runs:
        reported.update(batch_counts(job.output(), name))  # a batch repeated after a kill: the later report wins
    return {"produced": produced, "kills": kills, "reported": reported, "checkpoint": checkpoint}


def topic_end(kafka_client, topic: str) -> int:
    """The sum of the topic's end offsets (records written so far)."""
    meta = kafka_client.admin.list_topics(topic, timeout=10).topics[topic]
    offsets = kafka_client.admin.list_offsets(
        {TopicPartition(topic, p): OffsetSpec.latest() for p in meta.partitions}, request_timeout=10
    )
    return sum(f.result(10).offset for f in offsets.values())


@pytest.fixture(scope="module")
def restarts(kafka_bootstrap, kafka_client, tmp_path_factory) -> dict[str, dict]:
    """Both sinks' kill-and-restart runs, side by side (each JVM start costs seconds): sink -> what happened."""
    folders = {sink: tmp_path_factory.mktemp(f"restart_{sink}") for sink in SINKS}
    extra = {
        "files": {"OUT_DIR": str(folders["files"] / "files")},
        "kafka": {"RESTART_OUT_TOPIC": kafka_client.create_topic(f"restart-out-{uuid.uuid4().hex[:8]}", partitions=2)},
    }
    out_dir = Path(extra["files"]["OUT_DIR"]) / "out"
    written = {  # how much output there is so far (grows while a batch writes)
        "files": lambda: sum(p.stat().st_size for p in out_dir.glob("part-*")) if out_dir.is_dir() else 0,
        "kafka": lambda: topic_end(kafka_client, extra["kafka"]["RESTART_OUT_TOPIC"]),
    }
    with ThreadPoolExecutor(max_workers=len(SINKS)) as pool:
        futures = {
            sink: pool.submit(
                run_with_kills, folders[sink], kafka_bootstrap, kafka_client, sink, extra[sink], written[sink]
            )
            for sink in SINKS
        }
        results = {sink: future.result() for sink, future in futures.items()}
    for sink in SINKS:
        results[sink].update(extra[sink])
    return results


def check_kills(kills: list[KillReport]) -> None:
    assert len(kills) == len(KILLS)
    assert all(not k.orphans for k in kills), f"processes outlived their driver: {kills}"
    assert sum(k.planned > k.committed for k in kills) >= 2, f"too few kills landed mid-batch: {kills}"


def check_reported_counts(run: dict) -> str:
    """Every micro-batch line the job printed counts exactly the records of that batch's offset range."""
    checkpoint: Checkpoint = run["checkpoint"]
    assert run["reported"], "the job reported no micro-batch counts"
    for batch, (rows_in, written) in run["reported"].items():
        assert rows_in == written == checkpoint.records_in(batch), (batch, rows_in, written)
    batches = checkpoint.latest("commits") + 1
    return f"the job reported counts for {len(run['reported'])} of {batches} micro-batches, each exact"


def summary(sink: str, kills, produced: int, out_ids: Counter) -> str:
    lost = sum(1 for i in range(produced) if out_ids[i] == 0)
    duplicated = sum(n - 1 for n in out_ids.values() if n > 1)
    landed = ", ".join(
        f"{k.how}@batch{k.planned}{' in flight' if k.planned > k.committed else ''} gone in {k.exit_s}s" for k in kills
    )
    return (
        f"{sink} sink: kills={len(kills)} [{landed}] records in={produced} out={sum(out_ids.values())} "
        f"lost={lost} duplicated={duplicated}"
    )


def test_files_sink_is_exactly_once_across_sigkills(restarts, spark):
    run = restarts["files"]
    check_kills(run["kills"])
    out_dir = Path(run["OUT_DIR"]) / "out"
    # read as Spark reads a streaming file sink's folder: through its _spark_metadata log (committed files only)
    rows = spark.read.schema("id BIGINT, name STRING, src_offset BIGINT").json(str(out_dir)).collect()
    out_ids = Counter(r["id"] for r in rows)
    print("\n" + summary("files", run["kills"], run["produced"], out_ids))
    assert out_ids == Counter(range(run["produced"]))  # nothing lost, nothing duplicated
    assert all(r["name"] == f"n{r['id']}" for r in rows)
    on_disk = [line for part in out_dir.glob("part-*") for line in part.read_text().splitlines() if line]
    print(f"files sink: {len(on_disk)} lines in part files on disk, {len(on_disk) - len(rows)} outside the sink's log")
    print("files sink: " + check_reported_counts(run))


def test_kafka_sink_is_at_least_once_across_sigkills(restarts, kafka_client):
    run = restarts["kafka"]
    check_kills(run["kills"])
    values = [json.loads(r.value) for r in kafka_client.consume(run["RESTART_OUT_TOPIC"])]
    out_ids = Counter(v["id"] for v in values)
    print("\n" + summary("kafka", run["kills"], run["produced"], out_ids))
    assert set(out_ids) == set(range(run["produced"])), "records lost (or ids never produced)"
    assert all(v["name"] == f"n{v['id']}" for v in values)
    print("kafka sink: " + check_reported_counts(run))
