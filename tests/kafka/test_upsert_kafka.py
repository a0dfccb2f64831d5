"""upsert-kafka against the real broker: a compacted topic read as a table (batch) and as a changelog (streaming,
state under the checkpoint, across a restart), and an upsert-kafka -> upsert-kafka job whose output topic,
compacted by hand (last record per key, a tombstone = absent), is asserted key by key.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

COMPACTED = {"cleanup.policy": "compact"}

SOURCE = """\
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
"""
TO_FILES = (
    SOURCE
    + """\
    sink:
      connector: files
      path: unused
      format: json
      envelope: true
      {checkpoint}
"""
)
TO_UPSERT = (
    SOURCE
    + """\
    transforms:
      - {{name: shout, type: InsertField$Value, static.field: via, static.value: pipec}}
    sink:
      connector: upsert-kafka
      topic: {dst}
      primary-key: [id]
      value: {{format: json, fields-include: EXCEPT_KEY}}
      checkpoint: {ck}
      trigger: available-now
"""
)


def compile_job(tmp_path, yaml_text: str):
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(yaml_text), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((name, source),) = generate_all(result).items()
    job_file = tmp_path / name
    job_file.write_text(source, encoding="utf-8")
    return load_job(job_file)


def upsert(i: int, name: str | None) -> dict:
    """A record of key i: name None is a tombstone (delete)."""
    return {"key": json.dumps({"id": i}), "value": None if name is None else json.dumps({"id": i, "name": name})}


FIRST = [
    upsert(1, "a"),
    upsert(2, "b"),
    upsert(1, "a2"),
    upsert(3, "c"),
    upsert(2, None),
    upsert(4, None),
    upsert(3, "c"),
    upsert(5, "e"),
]
SECOND = [upsert(3, None), upsert(2, "b2"), upsert(5, "e"), upsert(1, "a3"), upsert(6, "f")]


def rows_written(spark, path) -> list[tuple]:
    """(id, name, op, offset) of every row the files sink wrote."""
    return [(r["id"], r["name"], r["op"], r["offset"]) for r in spark.read.json(str(path)).collect()]


def test_batch_reads_the_table_at_the_end_of_the_topic(kafka_bootstrap, kafka_client, spark, tmp_path):
    src = kafka_client.create_topic(config=COMPACTED)
    kafka_client.produce(src, FIRST)
    job = compile_job(tmp_path, TO_FILES.format(name="upsert_batch", mode="batch", src=src, checkpoint=""))
    assert job.main(["--bootstrap-servers", kafka_bootstrap, "--sink-path", str(tmp_path / "out")]) == 0
    rows = spark.read.json(str(tmp_path / "out")).collect()
    # the table: last value per key, deleted keys (2, 4) absent, the identical re-upsert of 3 keeps offset 6
    assert sorted((r["id"], r["name"], r["offset"]) for r in rows) == [(1, "a2", 2), (3, "c", 6), (5, "e", 7)]
    assert "op" not in rows[0].asDict()  # the table, not a changelog


def test_streaming_reads_a_changelog_and_resumes_after_a_restart(kafka_bootstrap, kafka_client, spark, tmp_path):
    src = kafka_client.create_topic(partitions=2, config=COMPACTED)
    kafka_client.produce(src, FIRST)
    ck = tmp_path / "ck"
    job = compile_job(
        tmp_path,
        TO_FILES.format(
            name="upsert_stream",
            mode="streaming",
            src=src,
            checkpoint=f"checkpoint: {ck}\n      trigger: available-now",
        ),
    )
    args = ["--bootstrap-servers", kafka_bootstrap, "--sink-path", str(tmp_path / "out")]
    assert job.main(args) == 0
    offsets = {}  # (id, name) -> the offset of its first record
    for r in kafka_client.consume(src):
        if r.value is not None:
            offsets.setdefault((json.loads(r.key)["id"], json.loads(r.value)["name"]), r.offset)
    first = rows_written(spark, tmp_path / "out")
    changes = sorted((i, n, op) for i, n, op, _ in first)
    assert changes == sorted(
        [
            (1, "a", "+I"),
            (1, "a", "-U"),
            (1, "a2", "+U"),
            (2, "b", "+I"),
            (2, "b", "-D"),
            (3, "c", "+I"),  # the identical re-upsert emits nothing; the delete of unseen key 4 emits nothing
            (5, "e", "+I"),
        ]
    )

    # stopped; new data arrives; the restarted job continues from its checkpoint and its state
    kafka_client.produce(src, SECOND)
    assert job.main(args) == 0
    second = [r for r in rows_written(spark, tmp_path / "out") if r not in first]
    assert sorted((i, n, op) for i, n, op, _ in second) == sorted(
        [
            (3, "c", "-D"),
            (2, "b2", "+I"),  # deleted before the restart: an insert again
            (1, "a2", "-U"),
            (1, "a3", "+U"),
            (6, "f", "+I"),  # 5 re-upserted identically: nothing
        ]
    )
    # -U and -D carry the stored image: the earlier record's offset (event order per key is asserted by the
    # record tests, tests/connectors/pipelines/upsert_changelog.yaml: files read back have no order)
    images = {(i, n, op): offset for i, n, op, offset in rows_written(spark, tmp_path / "out")}
    assert images[(1, "a2", "-U")] == images[(1, "a2", "+U")] == offsets[(1, "a2")]
    assert images[(3, "c", "-D")] == offsets[(3, "c")]  # the first upsert of c: the identical re-upsert kept it


def latest_per_key(records) -> dict:
    """A compacted topic's content: the last record of each key, a tombstone meaning the key is absent."""
    table: dict = {}
    for r in records:
        key = json.loads(r.key)["id"]
        if r.value is None:
            table.pop(key, None)
        else:
            table[key] = json.loads(r.value)
    return table


def test_upsert_to_upsert_leaves_the_right_table_in_the_output_topic(kafka_bootstrap, kafka_client, spark, tmp_path):
    src = kafka_client.create_topic(partitions=2, config=COMPACTED)
    dst = kafka_client.create_topic(partitions=3, config=COMPACTED)
    job = compile_job(
        tmp_path, TO_UPSERT.format(name="upsert_copy", mode="streaming", src=src, dst=dst, ck=tmp_path / "ck")
    )
    kafka_client.produce(src, FIRST)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    out = kafka_client.consume(dst)
    assert latest_per_key(out) == {
        1: {"name": "a2", "via": "pipec"},
        3: {"name": "c", "via": "pipec"},
        5: {"name": "e", "via": "pipec"},
    }
    # one micro-batch: only each key's last change is written (key 1 once, not +I then +U); the delete of the
    # key 2 seen in this batch is its last change (a tombstone); the unseen key 4 writes nothing
    assert sorted((json.loads(r.key)["id"], r.value is None) for r in out) == [
        (1, False),
        (2, True),
        (3, False),
        (5, False),
    ]
    for r in out:  # every record of a key in the key's partition (the producer's hash of the serialized key)
        assert r.partition == kafka_client.partition_for(r.key, 3)

    kafka_client.produce(src, SECOND)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert latest_per_key(kafka_client.consume(dst)) == {
        1: {"name": "a3", "via": "pipec"},
        2: {"name": "b2", "via": "pipec"},
        5: {"name": "e", "via": "pipec"},
        6: {"name": "f", "via": "pipec"},
    }
