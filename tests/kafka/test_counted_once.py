"""A streaming job whose decode yields one row per Kafka record observes its records once, at the sink: a
micro-batch's `in` is its progress's numInputRows (issue 28). A job that reads a micro-batch more than once keeps
its observation after decoding. Either way each micro-batch's counts line adds up exactly (SPEC section 8).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pipec.testing.runner import load_job
from pyspark.sql.streaming import StreamingQueryListener
from test_dead_letters import RECORDS, compile_job, topics

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]

# RECORDS twice over: 4 written, 2 filtered (a test payment), 6 dead letters (bad json, a failed cast, a tombstone
# the masking rejects), all in one micro-batch
LINE = r"^\[{name}\] micro-batch 0: in=12 written=4 filtered=2 superseded=0 dead_lettered=6$"


class Progresses(StreamingQueryListener):
    """Each micro-batch's observation names and numInputRows, as the query reports them."""

    def __init__(self) -> None:
        self.seen: list[tuple[list[str], int]] = []

    def onQueryStarted(self, event) -> None:
        pass

    def onQueryProgress(self, event) -> None:
        progress = event.progress
        if progress.observedMetrics:
            self.seen.append((sorted(progress.observedMetrics), progress.numInputRows))

    def onQueryTerminated(self, event) -> None:
        pass


def observations(job, spark, bootstrap: str) -> list[str]:
    """The observations in the plan of the job's streaming query (the rows its sink writes)."""
    rows = job.transform(job.read_source(spark, job.parse_args(["--bootstrap-servers", bootstrap])), job.Counts(True))
    return re.findall(r"CollectMetrics (pipec_\w+)", rows._jdf.queryExecution().analyzed().toString())


def run_counted(job, spark, bootstrap: str, capsys) -> tuple[str, list[tuple[list[str], int]]]:
    listener = Progresses()
    spark.streams.addListener(listener)
    try:
        assert job.main(["--bootstrap-servers", bootstrap]) == 0
        spark.streams.awaitAnyTermination(1)
    finally:
        spark.streams.removeListener(listener)
    return capsys.readouterr().out, listener.seen


def test_a_one_to_one_streaming_job_observes_once_and_its_counts_line_is_exact(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    src, dst, dlq = topics(kafka_client, "in", "out", "dlq")
    kafka_client.produce(src, RECORDS + RECORDS)
    errors = f"errors: {{tolerance: all, deadletterqueue.topic.name: {dlq}}}"
    job, source = compile_job(
        tmp_path,
        name="once",
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    assert (
        "one that does not decode is a dead letter, not dropped): a micro-batch's\n    # in= is its query's numInputRows"
        in source
    )
    assert observations(job, spark, kafka_bootstrap) == ["pipec_out"]
    out, seen = run_counted(job, spark, kafka_bootstrap, capsys)
    assert re.findall(LINE.format(name="once"), out, re.MULTILINE), out
    assert seen == [(["pipec_out"], 12)]  # the run's plan: one observation; in= is the batch's numInputRows
    assert len(kafka_client.consume(dst)) == 4 and len(kafka_client.consume(dlq)) == 6


def test_a_job_reading_each_micro_batch_twice_keeps_its_observation_after_decoding(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    """Dead letters to files: the sink's write and the dead letters' are two writes of each micro-batch (foreachBatch),
    so numInputRows need not be the rows decoded: the job observes them after decoding, as before."""
    src, dst = topics(kafka_client, "in", "out")
    kafka_client.produce(src, RECORDS + RECORDS)
    errors = f"errors: {{tolerance: all, deadletterqueue.path: {tmp_path / 'dead'}}}"
    job, source = compile_job(
        tmp_path,
        name="twice",
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    assert "foreachBatch" in source and "numInputRows" not in source.split("# pipec runtime")[0]
    assert observations(job, spark, kafka_bootstrap) == ["pipec_out", "pipec_in"]
    out, seen = run_counted(job, spark, kafka_bootstrap, capsys)
    assert re.findall(LINE.format(name="twice"), out, re.MULTILINE), out
    assert [names for names, _ in seen] == [["pipec_in", "pipec_out"]]
    assert len(kafka_client.consume(dst)) == 4


def test_the_shipped_delta_append_job_counts_each_record_once(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys, monkeypatch
):
    """clicks_bronze as generated: Kafka into a Delta table's append, the query's own sink (Delta's streaming sink
    writes each micro-batch in one pass): in= is numInputRows and equals the rows the table took."""
    (src,) = topics(kafka_client, "clicks")
    clicks = [{"key": None, "value": json.dumps({"user_id": i, "url": f"/p{i}", "clicked_at": None})} for i in range(5)]
    kafka_client.produce(src, clicks)
    for name, value in {"CLICKS_TOPIC": src, "LAKE": str(tmp_path / "lake"), "CHECKPOINT_DIR": str(tmp_path)}.items():
        monkeypatch.setenv(name, value)
    job = load_job(ROOT / "generated" / "clicks_bronze.py")
    assert observations(job, spark, kafka_bootstrap) == ["pipec_out"]
    out, seen = run_counted(job, spark, kafka_bootstrap, capsys)
    assert (
        "[clicks_bronze] micro-batch 0: in=5 written=5 filtered=0 superseded=0 dead_lettered=0 inserted=5 updated=0 deleted=0\n"
        in out
    )
    assert seen == [(["pipec_out"], 5)]
    assert spark.read.format("delta").load(str(tmp_path / "lake" / "clicks_bronze")).count() == 5
