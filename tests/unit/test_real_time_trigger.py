"""`trigger: real-time` (issue 15): Spark 4.1's real-time mode for a stateless kafka -> kafka pipeline; a located
compile error for each part of a pipeline real-time mode cannot run (Spark's real-time mode guide: Kafka source
and sink, stateless queries, update mode, no foreachBatch), and for a Spark target older than 4.1."""

from __future__ import annotations

import pytest
from pipec.diagnostics import CompileError
from pipec.testing.runner import load_job

KAFKA_TO_KAFKA = """\
version: 1
name: t
mode: streaming
source:
  connector: kafka
  topics: [in]
  properties: {bootstrap.servers: "localhost:9092"}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
transforms:
  - {name: tag, type: InsertField$Value, static.field: stage, static.value: rt}
sink:
  connector: kafka
  topic: out
  properties: {bootstrap.servers: "localhost:9092"}
  value: {format: json}
  checkpoint: ck
  trigger: {trigger}
"""

FILES_SOURCE = """\
source:
  connector: files
  path: in
  format: json
  columns:
    - {name: id, type: BIGINT}
"""
UPSERT_SOURCE = """\
source:
  connector: upsert-kafka
  topics: [in]
  properties: {bootstrap.servers: "localhost:9092"}
  primary-key: [id]
  key: {format: json}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
"""


def pipeline(trigger: str = "real-time", source: str | None = None, sink: str | None = None, extra: str = "") -> str:
    text = KAFKA_TO_KAFKA.replace("{trigger}", trigger) + extra
    if source:
        start, end = text.index("source:\n"), text.index("transforms:")
        text = text[:start] + source + text[end:]
    if sink:
        start = text.index("sink:\n")
        text = text[:start] + sink + f"  checkpoint: ck\n  trigger: {trigger}\n" + extra
    return text


def errors_of(compile_text, text: str) -> list[tuple[str, int, str]]:
    with pytest.raises(CompileError) as err:
        compile_text(text)
    return [(d.code, d.loc.line, d.message) for d in err.value.diagnostics]


@pytest.mark.parametrize("trigger", ["real-time", '"real-time: 1 minute"'])
def test_a_stateless_kafka_pipeline_compiles_for_spark_41(compile_text, tmp_path, trigger):
    _, files = compile_text(pipeline(trigger))
    path = tmp_path / "t.py"
    path.write_text(files["t.py"], encoding="utf-8")
    job = load_job(path)
    assert trigger.strip('"') == job.TRIGGER
    assert job.SPARK_NEEDED == "4.1"
    assert (
        'SPARK_NEEDED = "4.1"  # the oldest Spark line with every function the job calls (trigger real-time)'
        in files["t.py"]
    )


def test_a_declared_41_target_accepts_it(compile_text):
    compile_text(pipeline(extra='spark: {version: "4.1"}\n'))


def test_an_older_target_is_an_error_at_the_trigger(compile_text):
    (error,) = errors_of(compile_text, pipeline(extra='spark: {version: "4.0"}\n'))
    assert error == (
        "E900",
        19,
        "trigger: real-time needs Spark 4.1 or newer (real-time mode), but spark.version is 4.0",
    )


def test_a_files_source_is_an_error_at_its_connector(compile_text):
    (error,) = errors_of(compile_text, pipeline(source=FILES_SOURCE))
    assert error == ("E513", 5, "trigger: real-time needs a kafka source (Spark's real-time mode), not files")


def test_a_changelog_source_is_stateful(compile_text):
    errors = errors_of(compile_text, pipeline(source=UPSERT_SOURCE))  # and E540: its changelog into an append sink
    assert (
        "E513",
        5,
        "trigger: real-time runs stateless queries only: the upsert-kafka source keeps per-key state "
        "across micro-batches",
    ) in errors


@pytest.mark.parametrize(
    "sink, message",
    [
        (
            "sink:\n  connector: files\n  path: out\n  format: json\n",
            "needs a kafka sink (Spark's real-time mode), not files",
        ),
        (
            "sink:\n  connector: upsert-kafka\n  topic: out\n  primary-key: [id]\n  key: {format: json}\n"
            "  value: {format: json}\n",
            "runs stateless queries only: the upsert-kafka sink keeps per-key state",
        ),
    ],
    ids=["files", "upsert-kafka"],
)
def test_a_sink_it_cannot_write_is_an_error_at_its_connector(compile_text, sink, message):
    (error,) = errors_of(compile_text, pipeline(sink=sink))
    assert error[:2] == ("E513", 14) and message in error[2], error


def test_dead_letters_written_apart_are_an_error_at_the_tolerance(compile_text):
    """Dead letters through other producer options than the sink's are split through foreachBatch."""
    text = pipeline(
        extra="errors:\n  tolerance: all\n  deadletterqueue.topic.name: dlq\n"
        "  deadletterqueue.properties: {acks: all}\n"
    )
    (error,) = errors_of(compile_text, text)
    assert error[:2] == ("E513", 21) and "cannot split these dead letters" in error[2]


def test_dead_letters_in_the_sink_s_write_run_in_real_time(compile_text):
    """A dead-letter topic through the sink's cluster: one write of Spark's Kafka sink, no foreachBatch."""
    _, files = compile_text(pipeline(extra="errors:\n  tolerance: all\n  deadletterqueue.topic.name: dlq\n"))
    job = files["t.py"]
    assert "foreachBatch" not in job.split("\n# pipec runtime")[0] and "def with_dead_letters(" in job
    assert 'TRIGGER = "real-time"' in job


def test_every_refusal_is_reported_in_one_run(compile_text):
    sink = "sink:\n  connector: files\n  path: out\n  format: json\n"
    text = pipeline(sink=sink, extra="errors:\n  tolerance: all\n  deadletterqueue.path: dlq\n")
    assert [(code, line) for code, line, _ in errors_of(compile_text, text)] == [("E513", 14), ("E513", 20)]


@pytest.mark.parametrize("trigger", ["realtime", '"real-time:"', "real-time-ish"])
def test_the_schema_refuses_what_is_not_a_trigger(compile_text, trigger):
    errors = errors_of(compile_text, pipeline(trigger))
    assert errors and all(code == "E100" and line == 19 for code, line, _ in errors), errors


def test_other_triggers_are_not_checked(compile_text):
    compile_text(pipeline('"processing-time: 0 seconds"', source=FILES_SOURCE))
