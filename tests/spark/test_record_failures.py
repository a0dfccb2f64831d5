"""A record error in a record test (`pipec test`) says one line, the same in batch and streaming (SPEC sections 8
and 9): step, field, reason, topic, partition and offset, never Spark's `[STREAM_FAILED] ... Return Message:
Traceback` wrapper. Streaming record tests run their micro-batches through foreachBatch, and an upsert-kafka
sink's job through its own foreachBatch step: the record error crosses Py4J there as text only."""

from __future__ import annotations

import io

import pytest

pytestmark = pytest.mark.spark

KAFKA_SOURCE = """\
  connector: kafka
  topics: [orders]
  properties: {bootstrap.servers: "localhost:9092"}
  key: {format: json, fields: [id]}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
    - {name: amount, type: STRING}"""
FILES_SOURCE = """\
  connector: files
  path: landing
  format: json
  topic: orders
  columns:
    - {name: id, type: BIGINT}
    - {name: amount, type: STRING}"""
SINKS = {
    "kafka": "connector: kafka\n  topic: out\n  value: {format: json}",
    "upsert-kafka": "connector: upsert-kafka\n  topic: out\n  primary-key: [id]\n  value: {format: json}",
    "files": "connector: files\n  path: out\n  format: json",
}
PIPELINE = """\
version: 1
name: {name}
mode: {mode}
source:
{source}
transforms:
  - {{name: amount_int, type: Cast$Value, spec: "amount:int32"}}
sink:
  {sink}
  checkpoint: ck
tests:
  - name: the second record fails
    given:
      - {{value: {{id: 1, amount: "5"}}{first_batch}}}
      - {{value: {{id: 2, amount: "x"}}{second_batch}}}
    expect:
      - {{value: {{id: 1, amount: 5}}}}
"""
CAST_ERROR = (
    "the job failed: record error: Cast$Value 'amount_int': field 'amount': cannot cast the string to int32 "
    "(not a decimal integer in range) (topic orders, partition 0, offset 1)"
)
CASES = {  # source, sink
    "kafka_to_kafka": (KAFKA_SOURCE, "kafka"),
    "kafka_to_upsert": (KAFKA_SOURCE, "upsert-kafka"),  # the job's own foreachBatch step (micro_batch)
    "files_to_files": (FILES_SOURCE, "files"),
}


def run(compile_text, spark, text: str, name: str) -> list[str]:
    from pipec.testing.runner import run_tests

    result, files = compile_text(text, f"{name}.yaml")
    out = io.StringIO()
    assert not run_tests(result.compiled, files, spark=spark, out=out)
    return [line.strip() for line in out.getvalue().splitlines()]


def failure_line(lines: list[str]) -> str:
    (line,) = [line for line in lines if line.startswith("the job failed:")]
    return line


@pytest.mark.parametrize("case", CASES)
def test_streaming_record_test_says_the_batch_line(compile_text, spark, case):
    source, sink = CASES[case]
    lines = {}
    for mode, batches in (("batch", ("", "")), ("streaming", ("", "")), ("streaming", (", batch: 0", ", batch: 1"))):
        name = f"{case}_{mode}_{'batched' if batches[0] else 'one'}"
        text = PIPELINE.format(
            name=name, mode=mode, source=source, sink=SINKS[sink], first_batch=batches[0], second_batch=batches[1]
        )
        lines[name] = failure_line(run(compile_text, spark, text, name))
    batch = lines.pop(f"{case}_batch_one")
    if case.startswith("kafka"):
        assert batch == CAST_ERROR
    assert batch.startswith("the job failed: record error: Cast$Value 'amount_int': field 'amount': ")
    assert lines == {name: batch for name in lines}


NEWLINE = """\
version: 1
name: newline
mode: streaming
source:
  connector: kafka
  topics: [orders]
  properties: {bootstrap.servers: "localhost:9092"}
  value: {format: json}
  columns:
    - {name: "am\\nount", type: STRING}
transforms:
  - {name: amount_int, type: Cast$Value, spec: "am\\nount:int32"}
sink:
  connector: kafka
  topic: out
  value: {format: json}
  checkpoint: ck
tests:
  - name: fails
    given: [{value: {"am\\nount": "x"}}]
    expect: [{value: {"am\\nount": 5}}]
"""


def test_a_record_error_is_one_line_whatever_the_field_name_holds(compile_text, spark):
    """A record error names the field as the YAML spells it: a line break in the name is shown as \\n."""
    line = failure_line(run(compile_text, spark, NEWLINE, "newline"))
    assert line == CAST_ERROR.replace("'amount'", "'am\\nount'").replace("offset 1", "offset 0"), line


def test_expect_error_needs_a_record_error_not_any_failure(compile_text, spark, tmp_path, monkeypatch):
    """`expect_error` says a record fails with a record error; a job that fails otherwise (here an ANSI cast Spark
    raises itself, as a pipec bug would) fails the case, in batch and in streaming, and says why."""
    from pipec.testing.runner import load_job, run_case
    from pyspark.sql import functions as F

    for mode in ("batch", "streaming"):
        text = PIPELINE.format(
            name=f"not_a_record_error_{mode}",
            mode=mode,
            source=KAFKA_SOURCE,
            sink=SINKS["kafka"],
            first_batch="",
            second_batch="",
        )
        text = text.replace(
            "    expect:\n      - {value: {id: 1, amount: 5}}\n", "    expect_error: amount is no int32\n"
        )
        result, files = compile_text(text, f"not_a_record_error_{mode}.yaml")
        ((name, source),) = files.items()
        (tmp_path / name).write_text(source, encoding="utf-8")
        job = load_job(tmp_path / name)
        (compiled,) = result.compiled
        (case,) = compiled.pipeline.tests
        assert run_case(spark, job, compiled, case).passed  # the job's own record error

        def ansi_cast(records):  # Spark's own error for the second record's amount, not a pipec record error
            return records.withColumn("value", F.col("value").withField("amount", F.col("value.amount").cast("int")))

        monkeypatch.setattr(job, "chain", ansi_cast)
        outcome = run_case(spark, job, compiled, case)
        assert not outcome.passed
        (line,) = outcome.lines
        assert line.startswith(
            "  the job failed: [CAST_INVALID_INPUT] The value 'x' of the type \"STRING\" cannot be "
            'cast to "INT" because it is malformed.'
        ), line


FILES_STREAM = f"""\
version: 1
name: files_stream_fails
mode: streaming
source:
{FILES_SOURCE}
transforms:
  - {{name: amount_int, type: Cast$Value, spec: "amount:int32"}}
sink:
  connector: files
  path: out
  format: json
  checkpoint: ck
  trigger: available-now
"""


def test_a_streaming_job_says_the_record_error_in_one_line(compile_text, spark, tmp_path, capsys):
    """The job run through its own `main` (as `python job.py` runs it): the query fails with STREAM_FAILED, and the
    job prints the record error alone (a json files source has no offset: SPEC section 4.3)."""
    from pipec.testing.runner import load_job

    _, files = compile_text(FILES_STREAM, "files_stream_fails.yaml")
    (tmp_path / "files_stream_fails.py").write_text(files["files_stream_fails.py"], encoding="utf-8")
    job = load_job(tmp_path / "files_stream_fails.py")
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "part-0.json").write_text('{"id": 1, "amount": "5"}\n{"id": 2, "amount": "x"}\n', encoding="utf-8")
    capsys.readouterr()
    argv = ["--source-path", str(landing), "--sink-path", str(tmp_path / "out"), "--checkpoint", str(tmp_path / "ck")]
    assert job.main(argv) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        "files_stream_fails: failed: record error: Cast$Value 'amount_int': field 'amount': cannot cast "
        "the string to int32 (not a decimal integer in range) (topic orders, partition 0, offset null)"
    )
