"""`trigger: real-time` runs (issue 15): a stateless kafka -> kafka job in Spark's real-time mode on local[2] with
pyspark's own Spark (4.1+), as `python job.py` against the real broker. Records written while the query runs
come out transformed, each written (its output's CreateTime, set by Spark's producer) well within its batch,
which lasts REAL_TIME_BATCH: real-time mode writes a record as it arrives, a micro-batch at its end. The job
prints the counts of each real-time batch it commits, equal to the batch's offset range (Spark's observed
metrics work in real-time mode)."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path

import pyspark
import pytest
from killable_job import Checkpoint, JobProcess, job_env
from pipec.project.driver import build_all, generate_all
from test_restarts import SPARK_ARGS, batch_counts

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

REAL_TIME_BATCH = "5 seconds"
PIPELINE = f"""\
version: 1
name: real_time
mode: streaming
source:
  connector: kafka
  topics: ["${{env:RT_IN}}"]
  properties: {{bootstrap.servers: "${{env:KAFKA_BOOTSTRAP_SERVERS}}"}}
  value: {{format: json}}
  columns:
    - {{name: id, type: BIGINT}}
    - {{name: sent, type: DOUBLE}}
transforms:
  - name: tag
    type: InsertField$Value
    static.field: mode
    static.value: rt
sink:
  connector: kafka
  topic: ${{env:RT_OUT}}
  value: {{format: json}}
  checkpoint: ${{env:RT_CHECKPOINT}}
  trigger: "real-time: {REAL_TIME_BATCH}"
"""
RECORDS = 200
MOST_S = 2.5  # send to output CreateTime, for every record: half a batch (a loaded machine's margin)


def test_a_real_time_job_writes_each_record_as_it_arrives(tmp_path: Path, kafka_bootstrap, kafka_client):
    if tuple(int(p) for p in pyspark.__version__.split(".")[:2]) < (4, 1):
        pytest.fail(f"real-time mode needs Spark 4.1+; this pyspark is {pyspark.__version__}")
    path = tmp_path / "real_time.yaml"
    path.write_text(PIPELINE, encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    job_file = tmp_path / "real_time.py"
    job_file.write_text(generate_all(result)["real_time.py"], encoding="utf-8")
    topic_in = kafka_client.create_topic(f"rt-in-{uuid.uuid4().hex[:8]}", partitions=2)
    topic_out = kafka_client.create_topic(f"rt-out-{uuid.uuid4().hex[:8]}", partitions=2)
    checkpoint = Checkpoint(tmp_path / "ck")
    env = job_env(
        {
            "RT_IN": topic_in,
            "RT_OUT": topic_out,
            "RT_CHECKPOINT": str(checkpoint.path),
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        }
    )
    job = JobProcess(job_file, SPARK_ARGS, env, tmp_path / "run.log")
    try:
        # the query runs once its first real-time batch is planned; records then stream through its tasks
        checkpoint.wait_until(lambda: checkpoint.latest("offsets") >= 0, job, timeout=180, what="the query's start")
        time.sleep(2)
        sent = {}
        for i in range(RECORDS):
            sent[i] = time.time()
            kafka_client.produce(topic_in, [{"value": json.dumps({"id": i, "sent": sent[i]})}])
            time.sleep(0.01)
        deadline = time.monotonic() + 60
        records = []
        while time.monotonic() < deadline and len(records) < RECORDS:
            records = kafka_client.consume(topic_out)
            time.sleep(0.2)
        # two commits after the records: the job's count lines cover them all
        last = checkpoint.latest("commits")
        checkpoint.wait_until(
            lambda: checkpoint.latest("commits") >= last + 2, job, timeout=60, what="two more commits"
        )
        time.sleep(1)
    finally:
        job.ensure_dead()
    out = [json.loads(r.value) for r in records]
    assert sorted(r["id"] for r in out) == list(range(RECORDS)), job.output()[-3000:]
    assert all(r["mode"] == "rt" and r["sent"] == sent[r["id"]] for r in out)
    latencies = sorted(record.timestamp / 1000 - value["sent"] for record, value in zip(records, out))
    print(
        f"\nreal-time: send to output CreateTime p50 {latencies[len(latencies) // 2]:.3f} s, max {latencies[-1]:.3f} s"
    )
    assert latencies[-1] < MOST_S, latencies[-10:]
    printed = batch_counts(job.output(), "real_time")
    assert printed, job.output()[-3000:]
    for batch, (rows_in, written) in printed.items():
        assert rows_in == written == checkpoint.records_in(batch), (batch, rows_in, written)
    assert sum(rows_in for rows_in, _ in printed.values()) == RECORDS


DEAD_LETTERS = (
    PIPELINE.replace("name: real_time\n", "name: real_time_dlq\n")
    .replace(
        "    - {name: sent, type: DOUBLE}\n", "    - {name: sent, type: DOUBLE}\n    - {name: amount, type: STRING}\n"
    )
    .replace("transforms:\n", 'transforms:\n  - {name: amount_int, type: Cast$Value, spec: "amount:int32"}\n')
    + """\
errors:
  tolerance: all
  deadletterqueue.topic.name: ${env:RT_DLQ}
  deadletterqueue.context.headers.enable: true
"""
)


def test_a_real_time_job_sends_dead_letters_in_the_sink_s_write(tmp_path: Path, kafka_bootstrap, kafka_client):
    """Kafka Connect's errors.tolerance=all in real-time mode: a record that does not decode, or whose cast fails,
    goes untouched to the dead-letter topic with the context headers, in the sink's one write (the job runs no
    foreachBatch); the others come out transformed; each batch's counts add up."""
    if tuple(int(p) for p in pyspark.__version__.split(".")[:2]) < (4, 1):
        pytest.fail(f"real-time mode needs Spark 4.1+; this pyspark is {pyspark.__version__}")
    path = tmp_path / "real_time_dlq.yaml"
    path.write_text(DEAD_LETTERS, encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    source = generate_all(result)["real_time_dlq.py"]
    assert "foreachBatch" not in source.split("\n# pipec runtime")[0]
    job_file = tmp_path / "real_time_dlq.py"
    job_file.write_text(source, encoding="utf-8")
    topic_in = kafka_client.create_topic(f"rt-in-{uuid.uuid4().hex[:8]}")
    topic_out = kafka_client.create_topic(f"rt-out-{uuid.uuid4().hex[:8]}")
    topic_dlq = kafka_client.create_topic(f"rt-dlq-{uuid.uuid4().hex[:8]}")
    checkpoint = Checkpoint(tmp_path / "ck")
    env = job_env(
        {
            "RT_IN": topic_in,
            "RT_OUT": topic_out,
            "RT_DLQ": topic_dlq,
            "RT_CHECKPOINT": str(checkpoint.path),
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
        }
    )
    job = JobProcess(job_file, SPARK_ARGS, env, tmp_path / "run.log")
    values = [json.dumps({"id": i, "sent": 0.0, "amount": str(i) if i % 3 else "x"}).encode() for i in range(30)]
    values[10] = b"{not json"
    bad = {i for i in range(30) if i % 3 == 0} | {10}
    try:
        checkpoint.wait_until(lambda: checkpoint.latest("offsets") >= 0, job, timeout=180, what="the query's start")
        time.sleep(2)
        produced = kafka_client.produce(topic_in, [{"value": v} for v in values])
        deadline = time.monotonic() + 60
        out, letters = [], []
        while time.monotonic() < deadline and (len(out) < 30 - len(bad) or len(letters) < len(bad)):
            out, letters = kafka_client.consume(topic_out), kafka_client.consume(topic_dlq)
            time.sleep(0.2)
        last = checkpoint.latest("commits")
        checkpoint.wait_until(
            lambda: checkpoint.latest("commits") >= last + 2, job, timeout=60, what="two more commits"
        )
        time.sleep(1)
    finally:
        job.ensure_dead()
    assert sorted(json.loads(r.value)["id"] for r in out) == sorted(set(range(30)) - bad), job.output()[-3000:]
    assert all(json.loads(r.value)["amount"] == json.loads(r.value)["id"] for r in out)
    assert sorted((r.value, r.key) for r in letters) == sorted((produced[i].value, produced[i].key) for i in bad)
    for letter in letters:
        headers = dict(letter.headers)
        offset = int(headers["__connect.errors.offset"])
        assert offset in bad and headers["__connect.errors.topic"] == topic_in.encode()
        assert headers["__connect.errors.stage"] == (b"VALUE_CONVERTER" if offset == 10 else b"TRANSFORMATION")
    lines = re.findall(
        r"^\[real_time_dlq\] micro-batch (\d+): in=(\d+) written=(\d+) filtered=(\d+) superseded=(\d+) "
        r"dead_lettered=(\d+)$",
        job.output(),
        re.MULTILINE,
    )
    assert lines, job.output()[-3000:]
    totals = [0, 0, 0]
    for batch, rows_in, written, filtered, superseded, dead in lines:
        assert (
            int(rows_in)
            == int(written) + int(filtered) + int(superseded) + int(dead)
            == checkpoint.records_in(int(batch))
        )
        totals = [totals[0] + int(rows_in), totals[1] + int(written), totals[2] + int(dead)]
    assert totals == [30, 30 - len(bad), len(bad)]
