"""A generated job that fails says why in one line (SPEC section 8), the same in batch and streaming, whether the
query writes straight to its sink or through its own micro-batch function (upsert-kafka, dead letters): a record
error names step, field, reason, topic, partition and offset; any other error is its cause's first line, never
Spark's `[STREAM_FAILED] ... Return Message: Traceback` wrapper."""

from __future__ import annotations

import json
import textwrap
import uuid

import pytest
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

PIPELINE = """\
    version: 1
    name: {name}
    mode: {mode}
    source:
      connector: kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      key: {{format: json, fields: [id]}}
      value: {{format: json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: amount, type: STRING}}
    transforms:
      - {{name: amount_int, type: Cast$Value, spec: "amount:int32"}}
    sink:
      {sink}
      {checkpoint}
    {errors}
"""
SINKS = {
    "kafka": "connector: kafka\n      topic: {dst}\n      value: {{format: json}}",
    "upsert-kafka": "connector: upsert-kafka\n      topic: {dst}\n      primary-key: [id]\n      value: {{format: json}}",
}
GOOD = {"key": json.dumps({"id": 1}), "value": json.dumps({"id": 1, "amount": "5"})}
BAD = {"key": json.dumps({"id": 2}), "value": json.dumps({"id": 2, "amount": "x"})}


def failed_line(tmp_path, kafka_bootstrap, kafka_client, capsys, name, mode, sink, errors="") -> tuple[list[str], str]:
    """Run the job through its own `main` on GOOD then BAD; (its stderr lines, the source topic)."""
    tag = uuid.uuid4().hex[:8]
    src, dst = kafka_client.create_topic(f"in-{tag}"), kafka_client.create_topic(f"out-{tag}")
    kafka_client.produce(src, [GOOD, BAD])
    checkpoint = f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now" if mode == "streaming" else ""
    text = PIPELINE.format(
        name=name, mode=mode, src=src, sink=SINKS[sink].format(dst=dst), checkpoint=checkpoint, errors=errors
    )
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((file, source),) = generate_all(result).items()
    (tmp_path / file).write_text(source, encoding="utf-8")
    capsys.readouterr()
    assert load_job(tmp_path / file).main(["--bootstrap-servers", kafka_bootstrap]) == 1
    return capsys.readouterr().err.strip().splitlines(), src


@pytest.mark.parametrize("sink", SINKS)
@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_a_record_error_says_step_field_reason_and_position(
    tmp_path, kafka_bootstrap, kafka_client, spark, capsys, mode, sink
):
    name = f"fails_{mode}_{sink.replace('-', '_')}"
    err, src = failed_line(tmp_path, kafka_bootstrap, kafka_client, capsys, name, mode, sink)
    assert err == [
        f"{name}: failed: record error: Cast$Value 'amount_int': field 'amount': cannot cast the string to int32 "
        f"(not a decimal integer in range) (topic {src}, partition 0, offset 1)"
    ]


@pytest.mark.parametrize("mode", ["batch", "streaming"])
def test_an_error_writing_dead_letters_says_its_cause(tmp_path, kafka_bootstrap, kafka_client, spark, capsys, mode):
    """Dead letters are written from the job's micro-batch function (streaming) or after the batch: a dead-letter
    folder whose parent is a file fails the write, with Hadoop's exception behind Py4J's and Spark's wrappers."""
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, not a folder\n", encoding="utf-8")
    errors = f"errors: {{tolerance: all, deadletterqueue.path: {blocked / 'dlq'}}}"
    err, _ = failed_line(tmp_path, kafka_bootstrap, kafka_client, capsys, "dlq_blocked", mode, "kafka", errors)
    assert len(err) == 1 and err[0].startswith("dlq_blocked: failed: ParentNotDirectoryException: "), err
    assert str(blocked) in err[0] and "Traceback" not in err[0], err
