"""A Debezium topic on the real broker read by a generated job (value format debezium-json) into a files sink
with `envelope: true`, in batch and in streaming (available-now, resumed from its checkpoint): every row and
its op exactly, tombstones skipped and counted as filtered."""

from __future__ import annotations

import json
import re
import textwrap
import uuid
from pathlib import Path

import pytest
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

PIPELINE = """\
    version: 1
    name: e2e_debezium_{mode}
    mode: {mode}
    source:
      connector: kafka
      topics: [{topic}]
      properties: {{bootstrap.servers: "unused:1"}}
      key: {{format: json, fields: [id]}}
      value: {{format: debezium-json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
        - {{name: tbl, type: STRING, metadata: value.source.table, virtual: true}}
    transforms:
      - {{name: expose, type: ReplaceField$Value, renames: ["tbl:table_name"]}}
    sink:
      connector: files
      format: json
      path: {out}
      envelope: true
      {streaming}
"""


def compile_job(tmp_path: Path, mode: str, topic: str):
    streaming = f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now" if mode == "streaming" else ""
    text = PIPELINE.format(mode=mode, topic=topic, out=tmp_path / "out", streaming=streaming)
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    (tmp_path / name).write_text(source, encoding="utf-8")
    return load_job(tmp_path / name)


def change(op: str, id_: int, before: str | None, after: str | None) -> dict:
    image = lambda name: None if name is None else {"id": id_, "name": name}  # noqa: E731
    return {
        "key": json.dumps({"id": id_}),
        "value": json.dumps(
            {
                "before": image(before),
                "after": image(after),
                "op": op,
                "ts_ms": 1,
                "source": {"db": "inventory", "table": "customers"},
            }
        ),
    }


def tombstone(id_: int) -> dict:
    return {"key": json.dumps({"id": id_}), "value": None}


FIRST = [
    change("c", 1, None, "Ann"),
    change("r", 2, None, "Bob"),
    change("c", 3, None, "Cy"),
    change("u", 1, "Ann", "Anna"),
    change("d", 3, "Cy", None),
    tombstone(3),
]
SECOND = [change("d", 1, "Anna", None), tombstone(1), change("c", 1, None, "Ann2"), change("u", 2, "Bob", "Bobby")]


def expected_rows(produced) -> list[tuple]:
    """(partition, offset, op, id, name) per change, by Flink's op mapping."""
    out = []
    for rec in produced:
        if rec.value is None:
            continue
        msg = json.loads(rec.value)
        pairs = {
            "c": [("+I", "after")],
            "r": [("+I", "after")],
            "u": [("-U", "before"), ("+U", "after")],
            "d": [("-D", "before")],
        }[msg["op"]]
        for op, side in pairs:
            out.append((rec.partition, rec.offset, op, msg[side]["id"], msg[side]["name"]))
    return out


def written_rows(folder: Path, topic: str) -> list[tuple]:
    """The files sink's rows in write order (a Kafka partition's rows stay in one file, in offset order)."""
    rows = []
    for part in sorted(folder.glob("part-*.json")):
        for i, line in enumerate(part.read_text(encoding="utf-8").splitlines()):
            r = json.loads(line)
            assert r["topic"] == topic and r["table_name"] == "customers" and r["key"] == {"id": r["id"]}
            rows.append(
                (
                    (r["partition"], r["offset"], str(part), i),
                    (r["partition"], r["offset"], r["op"], r["id"], r["name"]),
                )
            )
    return [row for _, row in sorted(rows)]


def counts(out: str) -> list[tuple[int, int, int]]:
    return [tuple(map(int, m)) for m in re.findall(r"in=(\d+) written=(\d+) filtered=(\d+)", out)]


def test_batch_job_reads_a_debezium_topic_as_a_changelog(kafka_bootstrap, kafka_client, spark, tmp_path, capsys):
    topic = f"dbz-{uuid.uuid4().hex[:8]}"
    kafka_client.create_topic(topic, partitions=2)
    produced = kafka_client.produce(topic, FIRST + SECOND)
    job = compile_job(tmp_path, "batch", topic)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert written_rows(tmp_path / "out", topic) == sorted(expected_rows(produced), key=lambda r: (r[0], r[1]))
    assert counts(capsys.readouterr().out) == [(12, 10, 2)]  # 10 changes from 10 messages + 2 tombstones, filtered


def test_streaming_job_resumes_a_debezium_topic_from_its_checkpoint(
    kafka_bootstrap, kafka_client, spark, tmp_path, capsys
):
    topic = f"dbz-{uuid.uuid4().hex[:8]}"
    kafka_client.create_topic(topic, partitions=2)
    job = compile_job(tmp_path, "streaming", topic)
    first = kafka_client.produce(topic, FIRST)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert written_rows(tmp_path / "out", topic) == sorted(expected_rows(first), key=lambda r: (r[0], r[1]))
    second = kafka_client.produce(topic, SECOND)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert written_rows(tmp_path / "out", topic) == sorted(expected_rows(first + second), key=lambda r: (r[0], r[1]))
    runs = counts(capsys.readouterr().out)
    assert sum(r[0] for r in runs) == 12 and sum(r[1] for r in runs) == 10 and sum(r[2] for r in runs) == 2


TO_KAFKA = """\
    version: 1
    name: e2e_debezium_to_kafka
    mode: batch
    source:
      connector: kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      key: {{format: json, fields: [id]}}
      value: {{format: debezium-json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
    sink:
      connector: kafka
      topic: {dst}
      value: {{format: debezium-json}}
"""


def test_a_changelog_written_as_debezium_json_reads_back_as_the_same_changes(
    kafka_bootstrap, kafka_client, spark, tmp_path
):
    src, dst = (f"dbz-{uuid.uuid4().hex[:8]}" for _ in range(2))
    kafka_client.create_topic(src, partitions=2)
    kafka_client.create_topic(dst, partitions=2)
    produced = kafka_client.produce(src, FIRST + SECOND)
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(TO_KAFKA.format(src=src, dst=dst)), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    (tmp_path / name).write_text(source, encoding="utf-8")
    assert load_job(tmp_path / name).main(["--bootstrap-servers", kafka_bootstrap]) == 0

    consumed = kafka_client.consume(dst)
    written: dict[int, list] = {}
    for rec in sorted(
        consumed, key=lambda r: (r.partition, r.offset)
    ):  # one key's records stay in one partition, in order
        message = json.loads(rec.value)
        assert set(message) == {"before", "after", "op"}
        image = message["after"] if message["op"] == "c" else message["before"]
        assert json.loads(rec.key) == {"id": image["id"]}
        written.setdefault(image["id"], []).append((message["op"], image["name"], message["before"] is None))
    # Flink's writer: +I/+U as op c with after only, -U/-D as op d with before only
    wanted: dict[int, list] = {}
    for _, _, op, id_, name_ in expected_rows(produced):
        wanted.setdefault(id_, []).append(("c" if op in ("+I", "+U") else "d", name_, op in ("+I", "+U")))
    assert written == wanted
