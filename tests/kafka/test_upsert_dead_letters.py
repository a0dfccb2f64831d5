"""errors.tolerance: all with an upsert-kafka source and sink, against the real broker (SPEC section 8).

Kafka Connect's documented behaviour under `errors.tolerance=all`: a record that fails in a converter or a
transformation is skipped by the task and written, untouched (key, value and headers as read), to the dead-letter
queue, with the `__connect.errors.*` context headers when `errors.deadletterqueue.context.headers.enable` is
true; every other record goes on. For an upsert-kafka source (Flink's FLIP-149 table semantics) a skipped record
is no change of its key: the key keeps its last good image, so a later update's `-U` carries that image, and a
batch run's table holds it. Each run's counts add up: in = written + filtered + superseded + dead_lettered.
"""

from __future__ import annotations

import base64
import json
import textwrap

import pytest
from native_plan import python_operators
from pipec.testing.runner import compile_job as compile_yaml_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

COMPACTED = {"cleanup.policy": "compact"}
JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
CAST = "org.apache.kafka.connect.transforms.Cast$Value"

PIPELINE = """\
    version: 1
    name: {name}
    mode: {mode}
    source:
      connector: upsert-kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      primary-key: [id]
      key: {{format: json}}
      value: {{format: json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
        - {{name: amount, type: STRING}}
    transforms:
      - {{name: amount_int, type: Cast$Value, spec: "amount:int32"}}
    sink:
      connector: upsert-kafka
      topic: {dst}
      primary-key: [id]
      value: {{format: json, fields-include: EXCEPT_KEY}}
      {checkpoint}
    errors: {errors}
"""


def compile_job(tmp_path, **fields):
    return compile_yaml_job(tmp_path, textwrap.dedent(PIPELINE.format(**fields)))


def upsert(key, name: str | None = None, amount: str = "1", value: str | None = None, headers=()) -> dict:
    """A record of key `key` (an int: {"id": key}; a str: those bytes; None: no key); name None: a tombstone."""
    key_bytes = json.dumps({"id": key}) if isinstance(key, int) else key
    if value is None and name is not None:
        value = json.dumps({"id": key, "name": name, "amount": amount})
    return {"key": key_bytes, "value": value, "headers": list(headers)}


# offset: record, and (stage, class) for those that must be dead letters
FIRST = [
    upsert(1, "a", "5"),
    upsert(1, value="{not json", headers=[("trace", "t1")]),  # 1: VALUE_CONVERTER; key 1 keeps image "a"
    upsert(2, "b"),
    upsert(1, "a2", "7"),  # -U carries "a" (offset 0), not the dead letter
    upsert(3, "c", "x"),  # 4: the Cast fails
    upsert("not json", "e"),  # 5: KEY_CONVERTER (its value's id is no BIGINT either: Connect converts the key first)
    upsert(None, "f"),  # 6: no key, which cannot update the table
    upsert(2),  # 7: a delete: a tombstone
]
FIRST_DEAD = {
    1: ("VALUE_CONVERTER", JSON_CONVERTER),
    4: ("TRANSFORMATION", CAST),
    5: ("KEY_CONVERTER", JSON_CONVERTER),
    6: ("KEY_CONVERTER", JSON_CONVERTER),
}
SECOND = [upsert(1, value="[1, 2"), upsert(1, "a3", "9")]  # 8: dead; 9: -U carries "a2" (offset 3), +U "a3"


def table(records) -> dict:
    """A compacted topic's content: the last value of each key, a tombstone meaning the key is absent."""
    out: dict = {}
    for r in records:
        key = json.loads(r.key)["id"]
        if r.value is None:
            out.pop(key, None)
        else:
            out[key] = json.loads(r.value)
    return out


def check_letters(letters, produced, dead: dict, src: str, pipeline: str) -> None:
    """Each dead letter: its record's key, value and headers as read, then the context headers."""
    offsets = [int(dict(letter.headers)["__connect.errors.offset"]) for letter in letters]
    assert sorted(offsets) == sorted(dead)
    for letter, offset in zip(letters, offsets):
        original = produced[offset]
        assert (letter.key, letter.value) == (original.key, original.value)
        own, context = letter.headers[: len(original.headers)], dict(letter.headers[len(original.headers) :])
        assert own == original.headers
        stage, class_name = dead[offset]
        assert {k: v for k, v in context.items() if k != "__connect.errors.exception.message"} == {
            "__connect.errors.topic": src.encode(),
            "__connect.errors.partition": b"0",
            "__connect.errors.offset": str(offset).encode(),
            "__connect.errors.stage": stage.encode(),
            "__connect.errors.class.name": class_name.encode(),
            "__connect.errors.connector.name": pipeline.encode(),
        }
        message = context["__connect.errors.exception.message"].decode()
        assert message.endswith(f"(topic {src}, partition 0, offset {offset})"), message


def test_streaming_upsert_dead_letters_keep_each_keys_image(kafka_bootstrap, kafka_client, spark, tmp_path, capsys):
    src = kafka_client.create_topic()  # not compacted: a compacted topic refuses the record without a key
    dst = kafka_client.create_topic(config=COMPACTED)
    dlq = kafka_client.create_topic()
    errors = f"{{tolerance: all, deadletterqueue.topic.name: {dlq}, deadletterqueue.context.headers.enable: true}}"
    job = compile_job(
        tmp_path,
        name="upsert_dlq",
        mode="streaming",
        src=src,
        dst=dst,
        errors=errors,
        checkpoint=f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now",
    )
    kafka_client.produce(src, FIRST)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    out = capsys.readouterr().out
    # changelog: +I a, -U a, +U a2 (key 1); +I b, -D b (key 2); +I c (dead); plus 3 records that do not decode.
    # The sink writes each key's last change: key 1's +U, key 2's tombstone; the +Is before them are superseded.
    assert "[upsert_dlq] micro-batch 0: in=9 written=2 filtered=1 superseded=2 dead_lettered=4" in out
    assert table(kafka_client.consume(dst)) == {1: {"name": "a2", "amount": 7}}
    produced = kafka_client.consume(src)
    check_letters(kafka_client.consume(dlq), produced, FIRST_DEAD, src, "upsert_dlq")

    # restarted: a bad record of key 1 again, then an update. Had the bad record become key 1's image, the
    # update's -U would carry it and fail to decode (a second dead letter); it carries "a2" and is filtered.
    kafka_client.produce(src, SECOND)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert (
        "[upsert_dlq] micro-batch 1: in=3 written=1 filtered=1 superseded=0 dead_lettered=1" in capsys.readouterr().out
    )
    assert table(kafka_client.consume(dst)) == {1: {"name": "a3", "amount": 9}}
    produced = kafka_client.consume(src)
    check_letters(
        kafka_client.consume(dlq), produced, {**FIRST_DEAD, 8: ("VALUE_CONVERTER", JSON_CONVERTER)}, src, "upsert_dlq"
    )


def test_batch_upsert_table_skips_dead_letters(kafka_bootstrap, kafka_client, spark, tmp_path, capsys):
    src = kafka_client.create_topic()  # not compacted: a compacted topic refuses the record without a key
    dst = kafka_client.create_topic(config=COMPACTED)
    folder = tmp_path / "dead"
    job = compile_job(
        tmp_path,
        name="upsert_dlq_batch",
        mode="batch",
        src=src,
        dst=dst,
        checkpoint="",
        errors=f"{{tolerance: all, deadletterqueue.path: {folder}}}",
    )
    kafka_client.produce(src, FIRST + SECOND)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    # the table: key 1's last record that decodes (a3, offset 9), key 3 (its Cast fails: dead), key 2 deleted;
    # the 4 records that do not decode or have no key follow the table to the dead letters
    assert "[upsert_dlq_batch] batch: in=6 written=1 filtered=0 superseded=0 dead_lettered=5" in capsys.readouterr().out
    assert table(kafka_client.consume(dst)) == {1: {"name": "a3", "amount": 9}}

    produced = kafka_client.consume(src)
    lines = [json.loads(line) for f in sorted(folder.glob("part-*.json")) for line in f.read_text().splitlines()]
    dead = {**FIRST_DEAD, 8: ("VALUE_CONVERTER", JSON_CONVERTER)}
    assert sorted(d["offset"] for d in lines) == sorted(dead)
    b64 = lambda b: None if b is None else base64.b64encode(b).decode()  # noqa: E731
    for d in lines:
        original = produced[d["offset"]]
        assert (d["key"], d["value"], d["topic"]) == (b64(original.key), b64(original.value), src)
        assert [(h["key"], h["value"]) for h in d["headers"]] == [(k, b64(v)) for k, v in original.headers]
        assert (d["error"]["stage"], d["error"]["class"]) == dead[d["offset"]]

    # the record path, the table and the sink's reduction included, is native Spark
    rows = job.transform(job.read_source(spark, job.parse_args(["--bootstrap-servers", kafka_bootstrap])))
    good, letters = job.split(rows)
    assert python_operators(good) == [] and python_operators(letters) == []
