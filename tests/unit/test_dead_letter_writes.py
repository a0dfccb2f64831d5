"""How a job under `errors.tolerance: all` writes its sink and its dead letters, without Spark (docs/errors.md).

A kafka sink whose dead letters go to a Kafka topic through the same producer settings writes both in one write
of Spark's Kafka sink (each row to its own `topic`): no persist, no second pass, and in streaming no foreachBatch.
Any other pairing (a dead-letter folder, another sink, other producer settings) reads each batch once (persist) and
writes twice.
"""

from __future__ import annotations

import textwrap

import pytest
from pipec.tools.checkpoint_diff import spark_sink

PIPELINE = """\
    version: 1
    name: t
    mode: {mode}
    source:
      connector: kafka
      topics: [orders]
      properties: {{bootstrap.servers: "localhost:9092", security.protocol: PLAINTEXT}}
      value: {{format: json}}
      columns:
        - {{name: amount, type: STRING}}
    transforms:
      - {{name: amount_int, type: Cast$Value, spec: "amount:int32"}}
    sink:
      {sink}
      checkpoint: /tmp/ck
    errors: {{tolerance: all, {target}}}
"""
KAFKA_SINK = (
    "connector: kafka\n      topic: out\n      properties: {security.protocol: PLAINTEXT}\n      value: {format: json}"
)
FILES_SINK = "connector: files\n      path: /tmp/out\n      format: json"


def build(compile_text, mode="streaming", sink=KAFKA_SINK, target="deadletterqueue.topic.name: dlq"):
    """(the pipeline, its whole job)"""
    result, files = compile_text(textwrap.dedent(PIPELINE.format(mode=mode, sink=sink, target=target)))
    return result.compiled[0].pipeline, files["t.py"]


@pytest.mark.parametrize("mode", ["streaming", "batch"])
def test_a_kafka_sink_and_a_dead_letter_topic_through_the_same_producer_are_one_write(compile_text, mode):
    pipeline, job = build(compile_text, mode)
    assert "foreachBatch" not in job and "persist" not in job and "def write_batch(" not in job
    assert "def with_dead_letters(rows: DataFrame, topic: str) -> DataFrame:" in job
    assert 'return write_kafka(with_dead_letters(rows, "dlq"), args)' in job
    assert job.count('.format("kafka")') == 2  # the source's read and the one write
    writer = 'rows.writeStream.format("kafka")' if mode == "streaming" else 'rows.write.format("kafka")'
    assert writer in job
    if mode == "streaming":
        assert spark_sink(pipeline) == "kafka"  # pipec diff: the stream writes through Spark's Kafka sink


@pytest.mark.parametrize(
    "sink, target",
    [
        (KAFKA_SINK, "deadletterqueue.path: /tmp/dlq"),  # a folder
        (FILES_SINK, "deadletterqueue.topic.name: dlq"),  # another sink
        (KAFKA_SINK, "deadletterqueue.topic.name: dlq, deadletterqueue.properties: {acks: all}"),  # another producer
        (KAFKA_SINK.replace("PLAINTEXT}", "PLAINTEXT, acks: all}"), "deadletterqueue.topic.name: dlq"),
    ],
)
def test_other_pairs_read_each_batch_once_and_write_twice(compile_text, sink, target):
    pipeline, job = build(compile_text, "streaming", sink, target)
    assert "with_dead_letters" not in job
    assert "rows = rows.persist()" in job and "def write_good(" in job and "def write_dead_letters(" in job
    assert "write_good(good, args)" in job and "write_dead_letters(dead, args)" in job
    assert "writeStream.foreachBatch(" in job
    assert spark_sink(pipeline) == "foreachBatch"


def test_log_enable_gathers_the_first_dead_letter_with_the_counts(compile_text):
    """No separate pass over the dead letters to log them: the first one's message is an observed metric beside
    the counts (the runtime's `dead_letter_metrics`)."""
    _, job = build(compile_text, target="deadletterqueue.topic.name: dlq, log.enable: true, log.include.messages: true")
    assert "LOG_DEAD_LETTERS = True" in job and "LOG_RECORDS = True" in job and ".collect()" not in job
    _, quiet = build(compile_text)
    assert "LOG_DEAD_LETTERS = False" in quiet and "LOG_RECORDS = False" in quiet
