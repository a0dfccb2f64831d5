"""Streaming jobs that write through foreachBatch print the same count lines on a Spark Connect client as embedded,
one per committed micro-batch (issue 13). Spark Connect runs a micro-batch function in a Python worker of its server,
whose output goes to the server's log.

The jobs and their counts are those of test_upsert_dead_letters (an upsert-kafka source and sink, dead letters to a
topic: the record path runs inside the micro-batch function) and test_dead_letters (a kafka source with dead letters
to a topic: the micro-batch function splits each batch). Their expected lines are worked out there, from Kafka
Connect's tolerance: all and Flink's upsert writer; here each run from the checkpoint commits one micro-batch.
The upsert job's counts are observed inside its micro-batch function: before Connect 4.1 the client says once per
micro-batch that they are unavailable (tests/connect_counts.py); the other job's come with the batch's progress.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import test_dead_letters as kafka_letters
import test_upsert_dead_letters as upsert_letters
from connect_counts import check_count_lines, handed_views

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.connect]

RUN_TIMEOUT_S = 300


def run_job(job: Path, address: str, bootstrap: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, str(job), "--bootstrap-servers", bootstrap],
        cwd=job.parent,
        env={**os.environ, "SPARK_REMOTE": address},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


def count_lines(stdout: str, name: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(f"[{name}] ") and " in=" in line]


def test_the_upsert_jobs_count_lines_reach_the_connect_client(spark_connect, kafka_bootstrap, kafka_client, tmp_path):
    address, _ = spark_connect
    name = "upsert_dlq_connect"
    src, dst, dlq = (
        kafka_client.create_topic(),
        kafka_client.create_topic(config=upsert_letters.COMPACTED),
        kafka_client.create_topic(),
    )
    errors = f"{{tolerance: all, deadletterqueue.topic.name: {dlq}, deadletterqueue.context.headers.enable: true}}"
    upsert_letters.compile_job(
        tmp_path,
        name=name,
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    runs = [
        (upsert_letters.FIRST, f"[{name}] micro-batch 0: in=9 written=2 filtered=1 superseded=2 dead_lettered=4"),
        (upsert_letters.SECOND, f"[{name}] micro-batch 1: in=3 written=1 filtered=1 superseded=0 dead_lettered=1"),
    ]
    for records, line in runs:
        kafka_client.produce(src, records)
        check_count_lines(run_job(tmp_path / f"{name}.py", address, kafka_bootstrap), name, [line])
    assert handed_views(address) == []
    assert upsert_letters.table(kafka_client.consume(dst)) == {1: {"name": "a3", "amount": 9}}
    first = kafka_client.consume(src)[: len(upsert_letters.FIRST)]
    upsert_letters.check_letters(kafka_client.consume(dlq)[:4], first, upsert_letters.FIRST_DEAD, src, name)


def test_the_kafka_dead_letter_jobs_count_lines_reach_the_connect_client(
    spark_connect, kafka_bootstrap, kafka_client, tmp_path
):
    address, _ = spark_connect
    name = "dlq_stream_connect"
    src, dst, dlq = kafka_letters.topics(kafka_client, "in", "out", "dlq")
    kafka_client.produce(src, kafka_letters.RECORDS)
    errors = f"errors: {{tolerance: all, deadletterqueue.topic.name: {dlq}}}"
    kafka_letters.compile_job(
        tmp_path,
        name=name,
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    done = run_job(tmp_path / f"{name}.py", address, kafka_bootstrap)
    line = f"[{name}] micro-batch 0: in=6 written=2 filtered=1 superseded=0 dead_lettered=3"
    assert count_lines(done.stdout, name) == [line], done.stdout + done.stderr
    kafka_letters.check_sink(kafka_client, dst)
    assert len(kafka_client.consume(dlq)) == 3
