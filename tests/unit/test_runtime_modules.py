"""The runtime modules (compiler/runtime/) as code: each imports on its own (pyspark needs no JVM to import), is
already in the jobs' format (so a job carries it verbatim) and black's, and its pure-Python parts do what the jobs
rely on. Spark-side behaviour is the Spark and Kafka tests' (tests/spark, tests/kafka)."""

from __future__ import annotations

import argparse
import ast
import importlib
import os
from pathlib import Path

import pyspark
import pytest
from black_style import is_formatted
from pipec import record_errors, spark_versions
from pipec.emit import formatter, runtime_text
from pipec.emit import job as emit_job
from pipec.runtime import (
    ALTERNATIVES,
    PARTS,
    changelog,
    counts,
    env,
    failures,
    null_unless_corrupt,
    offsets,
    records,
    session,
    spark_lines,
    stream_writer,
)

RUNTIME = Path(runtime_text.RUNTIME)


@pytest.mark.parametrize("name", [*PARTS, "job_names"])
def test_each_part_imports_and_is_in_the_jobs_format(name):
    importlib.import_module(f"pipec.runtime.{name}")
    source = (RUNTIME / f"{name}.py").read_text(encoding="utf-8")
    assert formatter.format_source(source, f"{name}.py") == source, "run: ruff format compiler/runtime"
    assert is_formatted(source)


def test_every_module_is_a_part_and_every_alternative_is_one():
    modules = {p.stem for p in RUNTIME.glob("*.py")} - {"__init__", "job_names"}
    assert modules == set(PARTS)
    for name, parts in ALTERNATIVES.items():
        assert all(name in runtime_text.parts()[p].defines for p in parts), name


def top_level(source: str) -> tuple[set, set, int]:
    """(the top-level names, the imports, the last import's end line) as ast finds them in `source`."""
    names, imports, last = set(), set(), 0
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.update((getattr(node, "level", 0), getattr(node, "module", None), a.name) for a in node.names)
            last = node.end_lineno
    return names, imports, last


@pytest.mark.parametrize("name", PARTS)
def test_a_part_is_read_as_ast_reads_the_whole_module(name):
    """The emitter parses only a part's docstring and imports (up to the first two blank lines) and scans its names:
    the same names, imports and body as parsing it all."""
    source = (RUNTIME / f"{name}.py").read_text(encoding="utf-8")
    names, imports, last = top_level(source)
    assert top_level(source.split("\n\n\n", 1)[0])[1:] == (imports, last)
    part = runtime_text.parts()[name]
    assert part.defines == names
    assert part.body == "\n".join(source.split("\n")[last:]).strip("\n")


def test_a_part_reads_only_settings_the_emitter_can_write():
    read = {s for part in runtime_text.parts().values() for s in part.settings}
    assert read <= set(runtime_text.SETTINGS)


def test_the_decode_helpers_read_the_compilers_names():
    assert records.CORRUPT == record_errors.CORRUPT
    assert null_unless_corrupt.JSON_NULL == record_errors.JSON_NULL


def test_the_tables_a_job_carries_are_the_compilers():
    assert {k: tuple(v) for k, v in spark_lines.SPARK_LINES.items()} == spark_versions.job_tables()
    assert session.JVM_OPTIONS == emit_job.JVM_OPTIONS
    from pipec.connectors import table_source as compiler_table_source
    from pipec.runtime import table_source

    assert table_source.CHANGE_COLUMNS == compiler_table_source.CHANGE_COLUMNS
    assert sorted(table_source.ICEBERG_CHANGES.values()) == sorted(compiler_table_source.CHANGE_OPS)


def test_the_changelogs_hidden_tombstone_column_is_the_compilers():
    from pipec import changelog as compiler_changelog
    from pipec.runtime import changelog

    assert changelog.TOMBSTONE == compiler_changelog.TOMBSTONE


def test_table_sql_quotes_names_and_text_and_compares_types_as_the_format_stores_them():
    from pipec.runtime.table_sql import quoted, same_type, sql_text

    assert quoted("a`b") == "`a``b`"
    assert sql_text("it's \\ here") == "'it\\'s \\\\ here'"
    assert same_type("STRUCT<`a`: INT>", "struct<a:int>", "delta")
    assert same_type("smallint", "INT", "iceberg") and not same_type("smallint", "INT", "delta")


@pytest.mark.parametrize(
    "template, environ, expected",
    [
        ("${env:A}", {"A": "x"}, "x"),
        ("${env:A:-d}/b", {}, "d/b"),
        ("${env:A:-}", {}, ""),
        ("$${env:A}", {"A": "x"}, "${env:A}"),
        ("plain/${env:A}/$${x}", {"A": "1"}, "plain/1/${x}"),
    ],
)
def test_env_resolves_references_at_run_time(monkeypatch, template, environ, expected):
    monkeypatch.delenv("A", raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    assert env.env(template) == expected


def test_a_missing_variable_without_default_stops_the_job_naming_it(monkeypatch):
    monkeypatch.delenv("MISSING_VAR", raising=False)
    monkeypatch.setattr(env, "PIPELINE", "p")
    with pytest.raises(SystemExit) as stopped:
        env.env("${env:MISSING_VAR}")
    assert str(stopped.value) == "p: environment variable MISSING_VAR is not set"


class Raised(Exception):
    pass


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "[USER_RAISED_EXCEPTION] TRANSFORMATION: step 'c': bad\nvalue (topic t, partition 0, offset 7) SQLSTATE: P0001",
            "record error: TRANSFORMATION: step 'c': bad\\nvalue (topic t, partition 0, offset 7)",
        ),
        (  # Spark 3.5: raise_error throws a plain RuntimeException, inside a task's failure
            "An error occurred while calling o7.count.\n: org.apache.spark.SparkException: Job aborted due to stage "
            "failure: Lost task 0.0 in stage 3.0 (TID 5) (host executor driver): java.lang.RuntimeException: "
            "source: no key (topic t, partition 0, offset 0)\n\tat org.apache.spark.sql.Dataset.count",
            "record error: source: no key (topic t, partition 0, offset 0)",
        ),
        (
            "An error occurred while calling o42.save.\n: org.apache.spark.SparkException: [X] it broke\n\tat a.b",
            "[X] it broke",
        ),
        (
            "An error occurred while calling o1.x.\n: java.io.IOException: disk full",
            "IOException: disk full",
        ),
        (
            'outer\nTraceback (most recent call last):\n  File "j.py", line 1\n    raise X\nValueError: inner',
            "ValueError: inner",
        ),
        ("", "Raised"),
    ],
)
def test_failure_is_one_line_that_says_why(text, expected):
    assert failures.failure(Raised(text)) == expected


def test_counts_add_up_and_say_the_first_dead_letter(monkeypatch):
    monkeypatch.setattr(counts, "PIPELINE", "p")
    metrics = {
        "in": {"rows": 10},
        "out": {"rows": 8, "dead": 3, "first": "bad"},
        "fates": {"superseded": 2, "filtered": 1},
    }
    assert counts.Counts.lines("batch", metrics) == [
        ("[p] batch: in=10 written=2 filtered=3 superseded=2 dead_lettered=3", True),
        ("[p] dead letter: bad (and 2 more in this batch)", False),
    ]
    assert counts.Counts.lines("b", {"in": {"rows": 1}, "out": {"rows": 1}}) == [
        ("[p] b: in=1 written=1 filtered=0 superseded=0 dead_lettered=0", True)
    ]


def test_a_table_sinks_counts_say_the_rows_as_the_table_took_them(monkeypatch):
    monkeypatch.setattr(counts, "PIPELINE", "p")
    base = {"in": {"rows": 5}, "out": {"rows": 4}}
    [(line, _)] = counts.Counts.lines("batch", base)  # not a table sink
    assert line == "[p] batch: in=5 written=4 filtered=1 superseded=0 dead_lettered=0"
    monkeypatch.setattr(counts, "TABLE_SINK", True)
    # an append (a batch run, or a micro-batch's progress from the table format's own streaming sink): every written
    # row inserted
    [(line, _)] = counts.Counts.lines("batch", base)
    assert line == "[p] batch: in=5 written=4 filtered=1 superseded=0 dead_lettered=0 inserted=4 updated=0 deleted=0"
    [(line, _)] = counts.Counts.lines("b", {**base, "table": {"deleted": 1, "inserted": 2, "updated": 1}})
    assert line.endswith("dead_lettered=0 inserted=2 updated=1 deleted=1")


class Writer:
    """What start_trigger uses of a DataStreamWriter, recorded."""

    def __init__(self):
        self.calls = []

    def trigger(self, **kwargs):
        self.calls.append(("trigger", kwargs))
        return self

    def outputMode(self, mode):
        self.calls.append(("outputMode", mode))
        return self


@pytest.mark.parametrize(
    "trigger, calls",
    [
        (None, []),
        ("available-now", [("trigger", {"availableNow": True})]),
        ("once", [("trigger", {"once": True})]),
        ("processing-time: 10 seconds", [("trigger", {"processingTime": "10 seconds"})]),
        ("real-time", [("outputMode", "update"), ("trigger", {"realTime": "5 minutes"})]),
        ("real-time: 1 minute", [("outputMode", "update"), ("trigger", {"realTime": "1 minute"})]),
    ],
)
def test_triggers(trigger, calls):
    writer = Writer()
    assert stream_writer.start_trigger(writer, trigger) is writer
    assert writer.calls == calls


def test_the_trigger_is_the_options_else_the_sinks(monkeypatch):
    monkeypatch.setattr(stream_writer, "TRIGGER", "once")
    assert stream_writer.start_trigger(Writer(), None).calls == [("trigger", {"once": True})]
    assert stream_writer.start_trigger(Writer(), "available-now").calls == [("trigger", {"availableNow": True})]


def test_an_unknown_trigger_stops_the_job(monkeypatch):
    monkeypatch.setattr(stream_writer, "PIPELINE", "p")
    with pytest.raises(SystemExit, match="p: unknown trigger 'available-now: 5'"):
        stream_writer.start_trigger(Writer(), "available-now: 5")


def test_the_checkpoint_is_the_options_else_the_sinks(monkeypatch):
    monkeypatch.setattr(stream_writer, "CHECKPOINT", "${env:CK_DIR:-ck}/job")
    monkeypatch.setenv("CK_DIR", "/data")
    assert stream_writer.checkpoint(argparse.Namespace(checkpoint="/given")) == "/given"
    assert stream_writer.checkpoint(argparse.Namespace(checkpoint=None)) == "/data/job"
    monkeypatch.setattr(stream_writer, "CHECKPOINT", None)
    assert stream_writer.checkpoint(argparse.Namespace(checkpoint=None)) is None


def test_specific_offsets_become_sparks_json():
    assert offsets.specific_offsets("t", "partition:0,offset:42;partition:1,offset:-2") == '{"t": {"0": 42, "1": -2}}'


def test_a_micro_batch_reads_the_newest_base_before_it_and_the_deltas_after():
    markers = [
        {"slot": "base-0", "kind": "base", "batch": 3, "rows": 10},
        {"slot": "delta-0", "kind": "delta", "batch": 4, "rows": 1},
        {"slot": "delta-1", "kind": "delta", "batch": 5, "rows": 1},
        {"slot": "delta-2", "kind": "delta", "batch": 2, "rows": 1},  # before the base: replaced by it
        {"slot": "base-1", "kind": "base", "batch": 6, "rows": 12},  # batch 6's own, from an earlier attempt
    ]
    base, deltas = changelog.ChangelogState.live(None, markers, 6)
    assert base["slot"] == "base-0" and [d["slot"] for d in deltas] == ["delta-0", "delta-1"]
    assert changelog.ChangelogState.live(None, [], 0) == (None, [])


@pytest.mark.parametrize("streaming", [True, False])
def test_a_registry_job_runs_again_after_fetching_an_unmet_schema_id(monkeypatch, capsys, streaming):
    """registry_main: a batch run first fetches the ids its records carry; a run that fails on an id it had not met
    runs again once that id is fetched; any other failure is the job's one line and exit 1."""
    from pipec.runtime import registry_main

    calls = []
    failures = [RuntimeError("pipec: schema id 7 of the source.value is not fetched yet"), RuntimeError("broken")]

    def run(spark, args):
        calls.append("run")
        raise failures.pop(0)

    monkeypatch.setattr(registry_main, "PIPELINE", "p")
    monkeypatch.setattr(registry_main, "STREAMING", streaming)
    monkeypatch.setattr(registry_main, "parse_args", lambda argv: argparse.Namespace())
    monkeypatch.setattr(registry_main, "session", lambda args: "spark")
    monkeypatch.setattr(registry_main, "read_source", lambda spark, args: "raw")
    monkeypatch.setattr(registry_main, "fetch_carried_ids", lambda raw: calls.append(f"fetch {raw}"))
    monkeypatch.setattr(registry_main, "fetched_after", lambda exc: "not fetched yet" in str(exc))
    monkeypatch.setattr(registry_main, "run", run)
    assert registry_main.main([]) == 1
    assert calls == ([] if streaming else ["fetch raw"]) + ["run", "run"]
    assert capsys.readouterr().err == "p: failed: broken\n"


class FailingStart:
    """A session builder whose JVM writes why it failed to its stderr and does not start."""

    def getOrCreate(self):
        os.write(2, b"Error: Could not find or load main class\n")
        raise RuntimeError("Java gateway process exited before sending its port number")


def test_a_jvm_that_fails_to_start_is_said_in_the_one_line_and_stderr_comes_back_once(monkeypatch, tmp_path, capfd):
    log = tmp_path / "spark.log"
    monkeypatch.setattr(session, "SPARK_LOG", str(log))
    before = os.fstat(2)
    open_fds = len(os.listdir("/proc/self/fd"))
    with pytest.raises(RuntimeError, match="Java gateway"):
        session.start_quietly(FailingStart(), [])
    assert os.fstat(2).st_ino == before.st_ino  # Python's stderr back
    assert len(os.listdir("/proc/self/fd")) == open_fds  # the saved descriptor closed
    said = f" ... failed: Error: Could not find or load main class (Spark's output: {log})\n"
    assert capfd.readouterr().err == f"starting Spark {pyspark.__version__}{said}"  # the JVM's own line: in the log
    assert "Could not find or load main class" in log.read_text()
