"""errors.tolerance: all with a `files` source, on real Spark (SPEC section 8).

Expectations: Kafka Connect's documented dead-letter behaviour (`errors.tolerance=all`: a record that fails to
convert is skipped and written untouched to the dead-letter queue, with `__connect.errors.*` context headers when
`errors.deadletterqueue.context.headers.enable` is true), and Spark's documented json/csv reading: a line that
does not parse, a csv line with another number of fields than the schema, or a field that does not convert to
its column's type is a malformed record; blank lines and csv's header line are no records. Here a malformed line
goes to the dead letters as read (its bytes), with its file and its line number in that file, in batch and
streaming; every other line goes on, and in = written + filtered + superseded + dead_lettered.
"""

from __future__ import annotations

import base64
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
    transforms:
      - {{name: not_test, type: Filter, predicate: is_test}}
    predicates:
      is_test: {{type: RecordIsTombstone}}
    sink:
      connector: files
      path: unused
      format: json
      {checkpoint}
    errors: {{tolerance: all, deadletterqueue.path: {dead}, deadletterqueue.context.headers.enable: true}}
"""
CSV_CONVERTER, JSON_CONVERTER = "pipec.converters.CsvConverter", "org.apache.kafka.connect.json.JsonConverter"


def compile_job(tmp_path, **fields):
    return compile_yaml_job(tmp_path, textwrap.dedent(PIPELINE.format(**fields)))


def dead_letters(folder) -> list[dict]:
    return [json.loads(line) for f in sorted(folder.glob("part-*.json")) for line in f.read_text().splitlines()]


def written(folder) -> list[tuple]:
    rows = [json.loads(line) for f in sorted(folder.glob("part-*.json")) for line in f.read_text().splitlines()]
    return sorted((r["sensor"], r["celsius"]) for r in rows)


def check_letter(letter: dict, path, line: int, text: str, converter: str, pipeline: str) -> None:
    """A dead letter: the line as read, its file and number, the converter stage, Kafka Connect's context headers."""
    b64 = base64.b64encode(text.encode()).decode()
    uri = f"file:{path}"  # Spark's _metadata.file_path: the file's URI as Hadoop writes it
    message = letter["error"]["message"]
    assert message.endswith(f"(file {uri}, line {line})"), message
    assert {k: v for k, v in letter.items() if k not in ("timestamp", "headers")} == {
        "key": None,
        "value": b64,
        "topic": "readings",
        "partition": 0,
        "offset": line,
        "file": uri,
        "error": {"stage": "VALUE_CONVERTER", "class": converter, "message": message},
    }
    context = {h["key"]: base64.b64decode(h["value"]).decode() for h in letter["headers"]}
    assert context == {
        "__connect.errors.topic": "readings",
        "__connect.errors.partition": "0",
        "__connect.errors.offset": str(line),
        "__connect.errors.stage": "VALUE_CONVERTER",
        "__connect.errors.class.name": converter,
        "__connect.errors.exception.message": message,
        "__connect.errors.connector.name": pipeline,
        "__pipec.errors.file.path": uri,
        "__pipec.errors.file.line": str(line),
    }


CSV_A = [
    "sensor;celsius;taken_at",
    "t-1;21.5;2024-05-06T08:00:00Z",
    "t-2;22",
    "",
    "t-3;abc;2024-05-06T08:00:00Z",
    "t-4;1.25;2024-05-06T09:00:00Z",
]
CSV_B = ["# exported", "sensor;celsius;taken_at", "u-1;3;2024-05-06T08:00:00Z;extra", "u-2;4;2024-05-06T08:00:00Z"]


def test_batch_csv_malformed_lines_go_to_the_dead_letters_with_file_and_line(spark, tmp_path, capsys):
    src, out, dead = tmp_path / "in", tmp_path / "out", tmp_path / "dead"
    src.mkdir()
    (src / "a.csv").write_text("\n".join(CSV_A) + "\n", encoding="utf-8")
    (src / "b.csv").write_text("\r\n".join(CSV_B) + "\r\n", encoding="utf-8")
    job = compile_job(
        tmp_path,
        name="csv_dlq",
        mode="batch",
        format="csv",
        checkpoint="",
        dead=dead,
        options='{header: true, sep: ";", comment: "#"}',
    )
    assert job.main(["--source-path", str(src), "--sink-path", str(out)]) == 0
    # records: 4 lines of a.csv (not the header, not the blank line), 2 of b.csv (not the comment, not the header)
    assert "[csv_dlq] batch: in=6 written=3 filtered=0 superseded=0 dead_lettered=3" in capsys.readouterr().out
    assert written(out) == [("t-1", 21.5), ("t-4", 1.25), ("u-2", 4)]
    letters = sorted(dead_letters(dead), key=lambda d: (d["file"], d["offset"]))
    assert [(d["file"].rsplit("/", 1)[1], d["offset"]) for d in letters] == [("a.csv", 3), ("a.csv", 5), ("b.csv", 3)]
    for letter, (path, line) in zip(letters, [(src / "a.csv", 3), (src / "a.csv", 5), (src / "b.csv", 3)]):
        text = (CSV_A if path.name == "a.csv" else CSV_B)[line - 1]
        check_letter(letter, path, line, text, CSV_CONVERTER, "csv_dlq")


def test_line_numbers_span_the_blocks_of_a_file_read_by_several_tasks(spark, tmp_path, capsys):
    """A file split into blocks (spark.sql.files.maxPartitionBytes) is read by several tasks: numbers still count
    from the file's start, and each line is read once (the scan's output rows are the file's lines)."""
    src, out, dead = tmp_path / "in", tmp_path / "out", tmp_path / "dead"
    src.mkdir()
    lines = [
        json.dumps({"sensor": f"s-{i}", "celsius": i % 100, "taken_at": "2024-05-06T08:00:00Z"}) for i in range(3000)
    ]
    bad = {417: "{not json", 1999: "[1, 2]", 2998: '{"sensor": "x", "celsius": "warm"}'}
    for i, text in bad.items():
        lines[i] = text
    (src / "big.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    job = compile_job(tmp_path, name="json_blocks", mode="batch", format="json", checkpoint="", dead=dead, options="{}")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "16k")
    try:
        args = job.parse_args(["--source-path", str(src)])
        raw = job.read_source(spark, args)
        assert raw.rdd.getNumPartitions() > 4  # the one file, in several blocks
        rows = job.transform(raw)
        good, letters = job.split(rows)
        assert python_operators(good) == [] and python_operators(letters) == []
        got = {r["__raw"]["offset"]: r["__raw"]["value"].decode() for r in letters.collect()}
        assert got == {i + 1: text for i, text in bad.items()}
        scans = [n for n in _plan_nodes(rows) if "FileSourceScanExec" in n[0]]
        assert len(scans) == 1  # one read of the file
        assert job.main(["--source-path", str(src), "--sink-path", str(out)]) == 0
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert (
        "[json_blocks] batch: in=3000 written=2997 filtered=0 superseded=0 dead_lettered=3" in capsys.readouterr().out
    )


def _plan_nodes(df) -> list[tuple[str, object]]:
    """(class name, node) of each node of a DataFrame's executed plan (adaptive plans resolved)."""
    df.count()
    plan = df._jdf.queryExecution().executedPlan()
    nodes, todo = [], [plan]
    while todo:
        node = todo.pop()
        name = node.getClass().getSimpleName()
        nodes.append((name, node))
        if name == "AdaptiveSparkPlanExec":
            todo.append(node.executedPlan())
        elif "QueryStageExec" in name:
            todo.append(node.plan())
        children = node.children()
        todo.extend(children.apply(i) for i in range(children.size()))
    return nodes


def test_streaming_json_malformed_lines_go_to_the_dead_letters_per_micro_batch(spark, tmp_path, capsys):
    src, out, dead = tmp_path / "in", tmp_path / "out", tmp_path / "dead"
    src.mkdir()
    first = ['{"sensor": "a", "celsius": 1}', "", "{not json", '{"sensor": "b", "celsius": 2}']
    (src / "first.json").write_text("\n".join(first) + "\n", encoding="utf-8")
    job = compile_job(
        tmp_path,
        name="json_stream_dlq",
        mode="streaming",
        format="json",
        dead=dead,
        options="{}",
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    run = ["--source-path", str(src), "--sink-path", str(out)]
    assert job.main(run) == 0
    assert (
        "[json_stream_dlq] micro-batch 0: in=3 written=2 filtered=0 superseded=0 dead_lettered=1"
        in capsys.readouterr().out
    )

    second = ['{"sensor": "c", "celsius": 3, "taken_at": "yesterday"}', '{"sensor": "d", "celsius": 4}']
    (src / "second.json").write_text("\n".join(second), encoding="utf-8")  # no newline at the end
    assert job.main(run) == 0
    assert (
        "[json_stream_dlq] micro-batch 1: in=2 written=1 filtered=0 superseded=0 dead_lettered=1"
        in capsys.readouterr().out
    )
    assert written(out) == [("a", 1), ("b", 2), ("d", 4)]
    letters = sorted(dead_letters(dead), key=lambda d: d["file"])
    check_letter(letters[0], src / "first.json", 3, "{not json", JSON_CONVERTER, "json_stream_dlq")
    check_letter(letters[1], src / "second.json", 1, second[0], JSON_CONVERTER, "json_stream_dlq")
