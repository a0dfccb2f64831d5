"""A streaming files->files job, run in-process through its own `main`: new files only, exactly once (SPEC section 7).

`main()` builds its session with getOrCreate, so it reuses the test run's one SparkSession (and applies the job's
SESSION_CONF to it: UTC, ANSI, LAST_WIN map keys, which the test session has anyway).
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from pipec.testing.runner import load_job, run_tests
from pyspark.sql.streaming import StreamingQueryManager

pytestmark = pytest.mark.spark

PIPELINE = """\
version: 1
name: events_stream
description: Copy events from landing files to JSON, tagged with their topic and a stage.
mode: streaming
source:
  connector: files
  path: landing
  format: json
  topic: events
  columns:
    - {name: id, type: BIGINT}
    - {name: kind, type: STRING}
predicates:
  internal: {type: TopicNameMatches, pattern: "internal-.*"}
transforms:
  - name: drop_internal
    type: Filter
    predicate: internal
  - name: tag
    type: InsertField$Value
    topic.field: source_topic
    static.field: stage
    static.value: raw
sink:
  connector: files
  path: out/events_stream
  format: json
  checkpoint: checkpoints/events_stream
  trigger: available-now
tests:
  - name: runs micro-batches in order through one checkpoint
    given:
      - {value: {id: 1, kind: click}, batch: 0}
      - {value: {id: 2, kind: view}, batch: 0}
      - {value: {id: 3, kind: click}, batch: 1}
      - {value: {id: 4, kind: buy}, batch: 2}
    expect:
      - value: {id: 1, kind: click, source_topic: events, stage: raw}
      - value: {id: 2, kind: view, source_topic: events, stage: raw}
      - value: {id: 3, kind: click, source_topic: events, stage: raw}
      - value: {id: 4, kind: buy, source_topic: events, stage: raw}
"""


@pytest.fixture
def compiled_job(compile_text, tmp_path):
    result, files = compile_text(PIPELINE, "events_stream.yaml")
    assert len(result.compiled) == 1
    job_file = tmp_path / "events_stream.py"
    job_file.write_text(files["events_stream.py"], encoding="utf-8")
    return result, files, load_job(job_file)


@pytest.fixture
def listeners(monkeypatch, spark):
    """Remove any streaming listener `main` adds to the shared session once the test is over."""
    added = []
    original = StreamingQueryManager.addListener

    def add(self, listener):
        added.append(listener)
        return original(self, listener)

    monkeypatch.setattr(StreamingQueryManager, "addListener", add)
    yield added
    for listener in added:
        spark.streams.removeListener(listener)


def _land(folder: Path, name: str, rows: list[dict]) -> None:
    """Write a file of JSON lines atomically (a streaming source must never see half a file)."""
    tmp = folder.parent / f".{name}.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    tmp.replace(folder / name)


def _written(spark, sink: Path) -> Counter:
    """The sink's rows as a multiset (read through the sink's commit log, as a reader of the folder would)."""
    return Counter(tuple(sorted(r.asDict().items())) for r in spark.read.json(str(sink)).collect())


def _row(i: int, kind: str) -> tuple:
    return tuple(sorted({"id": i, "kind": kind, "source_topic": "events", "stage": "raw"}.items()))


def test_main_twice_writes_each_new_row_once(spark, compiled_job, listeners, tmp_path, capsys):
    _, _, job = compiled_job
    landing, sink, checkpoint = tmp_path / "landing", tmp_path / "sink", tmp_path / "checkpoint"
    landing.mkdir()
    argv = ["--source-path", str(landing), "--sink-path", str(sink), "--checkpoint", str(checkpoint)]

    _land(landing, "part-1.json", [{"id": 1, "kind": "click"}, {"id": 2, "kind": "view"}])
    assert job.main(argv) == 0
    first = _written(spark, sink)
    assert first == Counter([_row(1, "click"), _row(2, "view")])
    # one counts line per micro-batch (SPEC section 1), printed before main returns
    assert "[events_stream] micro-batch 0: in=2 written=2 filtered=0" in capsys.readouterr().out

    _land(landing, "part-2.json", [{"id": 3, "kind": "buy"}, {"id": 4, "kind": "click"}, {"id": 5, "kind": "view"}])
    assert job.main(argv) == 0
    second = _written(spark, sink)
    assert second - first == Counter([_row(3, "buy"), _row(4, "click"), _row(5, "view")])
    assert second == Counter([_row(1, "click"), _row(2, "view"), _row(3, "buy"), _row(4, "click"), _row(5, "view")])
    printed = capsys.readouterr().out
    assert "[events_stream] micro-batch 1: in=3 written=3 filtered=0" in printed
    assert "micro-batch 0" not in printed

    assert job.main(argv) == 0  # nothing new: nothing is written again
    assert _written(spark, sink) == second


def test_record_tests_with_batches_pass(spark, compiled_job):
    result, files, _ = compiled_job
    out = io.StringIO()
    passed = run_tests(result.compiled, files, spark=spark, out=out)
    assert passed, out.getvalue()
    assert "1 passed, 0 failed" in out.getvalue(), out.getvalue()


def test_record_tests_notice_a_wrong_batch_expectation(spark, compile_text):
    """Control: the batch test above could fail (a record expected that the micro-batches never wrote)."""
    text = PIPELINE.replace("{id: 4, kind: buy, source_topic", "{id: 5, kind: buy, source_topic")
    result, files = compile_text(text, "events_stream.yaml")
    out = io.StringIO()
    assert not run_tests(result.compiled, files, spark=spark, out=out), out.getvalue()
    assert "FAIL " in out.getvalue()
