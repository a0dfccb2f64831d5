"""Count lines survive a SIGKILL (issue 15): a streaming job prints each micro-batch's counts when Spark commits
it (a StreamingQueryListener's progress event, posted right after the batch's commits/N file), so a run whose
whole process group is SIGKILLed between micro-batches has printed the line of every batch in its checkpoint's
commits/ folder, each with the records of that batch's offset range.

After its third commit and its first count line, the run is killed KILL_AFTER_COMMIT_S after its next commit.
Before the listener the job printed its lines from the query's progress every 5 seconds (in a burst, as the
first line shows), so that commit's line was missing: run against that runtime, this test failed.
"""

from __future__ import annotations

import re
import time
import uuid
from pathlib import Path

import pytest
from killable_job import Checkpoint, JobProcess, job_env
from test_restarts import SPARK_ARGS, Producer, batch_counts, compile_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

KILL_AFTER_COMMIT_S = 0.6
# a batch committed this close to the kill may still be on Spark's listener bus: its line is not required
LISTENER_GRACE_S = 0.3
BATCHES_BEFORE_KILL = 3


def commit_times(checkpoint: Checkpoint) -> dict[int, float]:
    """Batch id -> when its commits/N file was written."""
    folder = checkpoint.path / "commits"
    return {int(p.name): p.stat().st_mtime for p in folder.iterdir() if p.name.isdigit()}


def test_a_killed_run_printed_every_committed_batch(tmp_path: Path, kafka_bootstrap, kafka_client):
    name = "restart_kafka"
    job_file = compile_job(tmp_path, name, "kafka")
    topic = kafka_client.create_topic(f"lines-in-{uuid.uuid4().hex[:8]}", partitions=2)
    env = job_env(
        {
            "RESTART_IN_TOPIC": topic,
            "KAFKA_BOOTSTRAP_SERVERS": kafka_bootstrap,
            "CHECKPOINT_DIR": str(tmp_path / "ck"),
            "RESTART_OUT_TOPIC": kafka_client.create_topic(f"lines-out-{uuid.uuid4().hex[:8]}", partitions=2),
        }
    )
    checkpoint = Checkpoint(tmp_path / "ck" / name)
    producer = Producer(kafka_client, topic)
    producer.produce_chunk()
    producer.start()
    job = JobProcess(job_file, SPARK_ARGS, env, tmp_path / "run.log")
    try:
        checkpoint.wait_until(
            lambda: checkpoint.latest("commits") >= BATCHES_BEFORE_KILL - 1, job, what=f"{BATCHES_BEFORE_KILL} commits"
        )
        checkpoint.wait_until(lambda: bool(batch_counts(job.output(), name)), job, what="a count line")
        last = checkpoint.latest("commits")
        checkpoint.wait_until(lambda: checkpoint.latest("commits") > last, job, what="the next commit")
        time.sleep(KILL_AFTER_COMMIT_S)
        killed_at = time.time()
        report = job.kill("group", checkpoint)
    finally:
        producer.stop()
        job.ensure_dead()
    assert not report.orphans, report
    committed = commit_times(checkpoint)
    required = {batch for batch, at in committed.items() if at <= killed_at - LISTENER_GRACE_S}
    printed = batch_counts(job.output(), name)
    assert len(required) > BATCHES_BEFORE_KILL and last + 1 in required, (committed, killed_at)
    assert required <= set(printed), (
        f"committed {sorted(committed)}, printed {sorted(printed)}:\n{job.output()[-3000:]}"
    )
    assert set(printed) <= set(committed), "a line for a batch that never committed"
    for batch, (rows_in, written) in printed.items():
        assert rows_in == written == checkpoint.records_in(batch), (batch, rows_in, written)
    late = sorted(set(committed) - required)
    print(
        f"\nkilled {KILL_AFTER_COMMIT_S}s after commit {last + 1}: committed {sorted(committed)}, "
        f"printed {sorted(printed)}, committed within {LISTENER_GRACE_S}s of the kill {late}"
    )
    assert re.search(rf"^\[{name}\] micro-batch 0: in=\d+ ", job.output(), re.MULTILINE)
