"""A `files` source under `errors.tolerance: none` (the default) fails the job on a malformed line, on real Spark
(SPEC section 8).

Expectations: Kafka Connect's documented `errors.tolerance=none` (a record that fails to convert fails the task,
`VALUE_CONVERTER` stage), as the Kafka source already does, and Spark's documented json/csv reading: a line that
does not parse, a csv line with another number of fields than the schema, or a field that does not convert to its
column's type is a malformed record (Spark's default PERMISSIVE mode turns it into nulls); blank lines and csv's
header line are no records. Here the job exits 1 with one line naming the stage, the reason and the file, in batch
and streaming, and writes nothing for the failed batch. An explicit `mode` keeps Spark's meaning (PERMISSIVE:
nulls, DROPMALFORMED: the line dropped). Parquet and avro files carry their own schema: a file whose column does not
convert to the declared type fails the job, naming the file.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from native_plan import python_operators
from pipec.testing.runner import compile_job as compile_yaml_job

pytestmark = pytest.mark.spark

PIPELINE = """\
    version: 1
    name: {name}
    mode: {mode}
    source:
      connector: files
      path: unused
      format: {format}
      options: {options}
      topic: readings
      columns:
        - {{name: sensor, type: STRING}}
        - {{name: celsius, type: "DECIMAL(5, 2)"}}
        - {{name: taken_at, type: "TIMESTAMP_LTZ(3)"}}
    sink:
      connector: files
      path: unused
      format: json
      {checkpoint}
"""
NOT_JSON = "VALUE_CONVERTER: source value: not valid json for the declared columns"
NOT_CSV = "VALUE_CONVERTER: source value: not valid csv for the declared columns"
GOOD = ['{"sensor": "a", "celsius": 1, "taken_at": "2024-05-06T08:00:00Z"}', "", '{"sensor": "b", "celsius": 2}']


def compile_job(tmp_path, name, mode="batch", format="json", options="{}", checkpoint=""):
    text = PIPELINE.format(name=name, mode=mode, format=format, options=options, checkpoint=checkpoint)
    return compile_yaml_job(tmp_path, textwrap.dedent(text))


def written(folder) -> list[tuple]:
    rows = [json.loads(line) for f in sorted(folder.glob("part-*.json")) for line in f.read_text().splitlines()]
    return sorted((r["sensor"], r["celsius"]) for r in rows)


def run_failing(job, capsys, argv) -> str:
    """The job's exit status is 1 and it says one line on stderr: that line."""
    capsys.readouterr()
    assert job.main(argv) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    "bad, reason",
    [
        ("{not json", NOT_JSON),
        ('{"sensor": "x", "celsius": "warm"}', NOT_JSON),  # a field that does not convert to its column's type
        ("[1, 2]", NOT_JSON),  # an array of scalars: no record
        (
            '{"sensor": "x", "taken_at": "yesterday"}',
            "VALUE_CONVERTER: source value: field 'taken_at' is neither epoch milliseconds nor an ISO-8601 timestamp",
        ),
    ],
)
def test_batch_json_fails_on_a_malformed_line_naming_the_file(spark, tmp_path, capsys, bad, reason):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "good.json").write_text("\n".join(GOOD) + "\n", encoding="utf-8")
    (src / "bad.json").write_text("\n".join([GOOD[0], bad, GOOD[2]]) + "\n", encoding="utf-8")
    job = compile_job(tmp_path, "json_none")
    line = run_failing(job, capsys, ["--source-path", str(src), "--sink-path", str(out)])
    assert line == f"json_none: failed: record error: {reason} (file file:{src / 'bad.json'})", line
    assert written(out) == []  # the batch failed: nothing committed


def test_the_check_keeps_the_plan_native_with_one_read_of_the_files(spark, tmp_path, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "good.json").write_text("\n".join(GOOD) + "\n", encoding="utf-8")
    job = compile_job(tmp_path, "json_plan")
    args = job.parse_args(["--source-path", str(src)])
    rows = job.transform(job.read_source(spark, args))
    assert python_operators(rows) == []
    plan = rows._jdf.queryExecution().executedPlan().toString()
    assert plan.count("FileScan json") == 1, plan
    assert "Exchange" not in plan and "Window" not in plan, plan  # no numbering of lines: only tolerance: all does
    assert job.main(["--source-path", str(src), "--sink-path", str(out)]) == 0
    assert "[json_plan] batch: in=2 written=2 filtered=0 superseded=0 dead_lettered=0" in capsys.readouterr().out
    assert written(out) == [("a", 1), ("b", 2)]


CSV_GOOD = ["sensor;celsius;taken_at", "t-1;21.5;2024-05-06T08:00:00Z", "", "t-2;3;2024-05-06T09:00:00Z"]


@pytest.mark.parametrize(
    "bad, enforce",
    [
        ("t-3;22", "true"),
        ("t-3;abc;2024-05-06T08:00:00Z", "true"),
        ("t-3;1;2024-05-06T08:00:00Z;extra", "true"),
        ("t-3;22", "false"),  # Spark checks the header's names against the declared columns
    ],
)
def test_batch_csv_with_a_header_fails_on_a_malformed_line(spark, tmp_path, capsys, bad, enforce):
    """Too few fields, a field that does not convert, too many fields; the header line is no record."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    job = compile_job(
        tmp_path, "csv_none", format="csv", options=f'{{header: true, sep: ";", enforceSchema: {enforce}}}'
    )
    (src / "a.csv").write_text("\n".join(CSV_GOOD) + "\n", encoding="utf-8")
    assert job.main(["--source-path", str(src), "--sink-path", str(out)]) == 0
    assert "[csv_none] batch: in=2 written=2 filtered=0 superseded=0 dead_lettered=0" in capsys.readouterr().out
    assert written(out) == [("t-1", 21.5), ("t-2", 3)]
    (src / "b.csv").write_text("\r\n".join(CSV_GOOD[:2] + [bad]) + "\r\n", encoding="utf-8")
    line = run_failing(job, capsys, ["--source-path", str(src), "--sink-path", str(tmp_path / "out2")])
    assert line == f"csv_none: failed: record error: {NOT_CSV} (file file:{src / 'b.csv'})", line


def test_streaming_json_fails_on_a_malformed_line_after_the_good_micro_batches(spark, tmp_path, capsys):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "first.json").write_text("\n".join(GOOD) + "\n", encoding="utf-8")
    job = compile_job(
        tmp_path,
        "json_stream_none",
        mode="streaming",
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    run = ["--source-path", str(src), "--sink-path", str(out)]
    assert job.main(run) == 0
    assert "[json_stream_none] micro-batch 0: in=2 written=2" in capsys.readouterr().out
    (src / "second.json").write_text(
        '{"sensor": "c", "celsius": 3}\n{"sensor": "d", "celsius": "warm"}\n', encoding="utf-8"
    )
    line = run_failing(job, capsys, run)
    assert line == f"json_stream_none: failed: record error: {NOT_JSON} (file file:{src / 'second.json'})", line
    assert written(out) == [("a", 1), ("b", 2)]


@pytest.mark.parametrize(
    "mode, rows",
    [
        ("PERMISSIVE", [("a", 1), ("b", 2), (None, None)]),  # Spark's nulls, as the user asked
        ("DROPMALFORMED", [("a", 1), ("b", 2)]),
    ],
)
def test_an_explicit_mode_keeps_spark_s_meaning(spark, tmp_path, capsys, mode, rows):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    (src / "a.json").write_text("\n".join(GOOD + ["{not json"]) + "\n", encoding="utf-8")
    job = compile_job(tmp_path, f"json_{mode.lower()}", options=f"{{mode: {mode}}}")
    assert job.main(["--source-path", str(src), "--sink-path", str(out)]) == 0
    got = [json.loads(line) for f in sorted(out.glob("part-*.json")) for line in f.read_text().splitlines()]
    assert sorted(((r["sensor"], r["celsius"]) for r in got), key=str) == sorted(rows, key=str)


def test_failfast_is_the_default_s_located_error(spark, tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.json").write_text("\n".join(GOOD + ["{not json"]) + "\n", encoding="utf-8")
    job = compile_job(tmp_path, "json_failfast", options="{mode: FAILFAST}")
    line = run_failing(job, capsys, ["--source-path", str(src), "--sink-path", str(tmp_path / "out")])
    assert line == f"json_failfast: failed: record error: {NOT_JSON} (file file:{src / 'a.json'})", line


@pytest.mark.parametrize("format", ["parquet", "avro"])
def test_parquet_and_avro_fail_on_a_column_of_another_type_naming_the_file(spark, tmp_path, capsys, format):
    """Their files carry a schema: a file whose `celsius` is text, where the pipeline declares a decimal."""
    src = tmp_path / "in"
    frame = spark.createDataFrame([("a", "warm", None)], "sensor STRING, celsius STRING, taken_at TIMESTAMP")
    frame.coalesce(1).write.format(format).save(str(src))
    job = compile_job(tmp_path, f"{format}_none", format=format)
    line = run_failing(job, capsys, ["--source-path", str(src), "--sink-path", str(tmp_path / "out")])
    (data,) = [f for f in src.iterdir() if f.name.startswith("part-")]
    assert line.startswith(f"{format}_none: failed: ") and str(data) in line, line
