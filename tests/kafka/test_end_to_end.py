"""Generated jobs against the real broker: Kafka source -> chain -> Kafka sink, batch and streaming.

Records are produced with keys and duplicate headers, the job's own `main` runs on the session's Spark
(with Spark's Kafka connector), and what it wrote is consumed back and compared exactly, including the
metadata column values against what the broker reports.
"""

from __future__ import annotations

import json
import textwrap
import uuid

import pytest
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark]


def compile_job(tmp_path, yaml_text: str):
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(yaml_text), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    files = generate_all(result)
    ((name, source),) = files.items()
    job_file = tmp_path / name
    job_file.write_text(source, encoding="utf-8")
    return load_job(job_file)


def run(job, bootstrap: str, *extra: str) -> None:
    assert job.main(["--bootstrap-servers", bootstrap, *extra]) == 0


def topic_names() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"in-{tag}", f"out-{tag}"


PIPELINE = """\
    version: 1
    name: e2e_{mode}
    mode: {mode}
    source:
      connector: kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      key: {{format: json, fields: [id]}}
      value: {{format: json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: name, type: STRING}}
        - {{name: offs, type: BIGINT, metadata: offset, virtual: true}}
        - {{name: part, type: INT, metadata: partition, virtual: true}}
        - {{name: ts, type: BIGINT, metadata: timestamp, virtual: true}}
        - {{name: ts_type, type: STRING, metadata: timestamp-type, virtual: true}}
        - {{name: src_topic, type: STRING, metadata: topic, virtual: true}}
        - {{name: all_headers, headers: true}}
    transforms:
      - name: keep_metadata
        type: ReplaceField$Value
        renames: ["offs:offset_seen", "part:partition_seen", "ts:timestamp_seen", "ts_type:type_seen", "src_topic:topic_seen"]
    sink:
      connector: kafka
      topic: {dst}
      value: {{format: json}}
      {checkpoint}
"""


def produce_input(kafka_client, topic: str, n: int, start: int = 0):
    records = [
        {
            "key": json.dumps({"id": i}),
            "value": json.dumps({"id": i, "name": f"n{i}"}),
            "headers": [("trace", f"t{i}-a"), ("trace", f"t{i}-b"), ("other", None)],
        }
        for i in range(start, start + n)
    ]
    return kafka_client.produce(topic, records)


def check_output(produced, consumed) -> None:
    """Each output record carries its input's key, payload, metadata and headers exactly."""
    assert len(consumed) == len(produced)
    by_id = {json.loads(r.key)["id"]: r for r in produced}
    for out in consumed:
        key = json.loads(out.key)
        value = json.loads(out.value)
        src = by_id[key["id"]]
        assert key == {"id": value["id"]}
        assert value["name"] == f"n{value['id']}"
        assert value["offset_seen"] == src.offset
        assert value["partition_seen"] == src.partition
        assert value["timestamp_seen"] == src.timestamp
        assert value["type_seen"] == src.timestamp_type == "CreateTime"
        assert value["topic_seen"] == src.topic
        # HEADERS holds every header, in wire order, duplicates and null values included (BYTES are base64 in JSON)
        assert [(h["key"], h["value"]) for h in value["all_headers"]] == [
            ("trace", _b64(f"t{value['id']}-a")),
            ("trace", _b64(f"t{value['id']}-b")),
            ("other", None),
        ]
        # the envelope's headers are written back as Kafka headers, duplicates and null values included
        assert out.headers == [
            ("trace", f"t{value['id']}-a".encode()),
            ("trace", f"t{value['id']}-b".encode()),
            ("other", None),
        ]
        assert set(value) == {
            "id",
            "name",
            "offset_seen",
            "partition_seen",
            "timestamp_seen",
            "type_seen",
            "topic_seen",
            "all_headers",
        }


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


def test_batch_job_copies_records_with_metadata_and_headers(kafka_bootstrap, kafka_client, spark, tmp_path):
    src, dst = topic_names()
    kafka_client.create_topic(src, partitions=3)
    kafka_client.create_topic(dst, partitions=3)
    produced = produce_input(kafka_client, src, 12)
    job = compile_job(tmp_path, PIPELINE.format(mode="batch", src=src, dst=dst, checkpoint=""))
    run(job, kafka_bootstrap)
    consumed = kafka_client.consume(dst)
    check_output(produced, consumed)
    # no partition column: the producer partitions by the serialized key, as Kafka's default partitioner does
    for out in consumed:
        assert out.partition == kafka_client.partition_for(out.key, 3)


def test_streaming_job_resumes_from_its_checkpoint(kafka_bootstrap, kafka_client, spark, tmp_path):
    src, dst = topic_names()
    kafka_client.create_topic(src, partitions=2)
    kafka_client.create_topic(dst, partitions=1)
    checkpoint = f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now"
    job = compile_job(tmp_path, PIPELINE.format(mode="streaming", src=src, dst=dst, checkpoint=checkpoint))
    first = produce_input(kafka_client, src, 5)
    run(job, kafka_bootstrap)
    check_output(first, kafka_client.consume(dst))
    second = produce_input(kafka_client, src, 4, start=100)
    run(job, kafka_bootstrap)
    check_output(first + second, kafka_client.consume(dst))  # only the new records were added


ROUTING = """\
    version: 1
    name: e2e_routing
    mode: batch
    source:
      connector: kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      key: {{format: raw}}
      value: {{format: json}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: dest, type: INT}}
        - {{name: hdrs, type: "MAP<STRING, BYTES>", metadata: headers}}
        - {{name: h, header: h}}
    transforms:
      - {{name: mark, type: InsertField$Value, static.field: via, static.value: pipec}}
    sink:
      connector: kafka
      value: {{format: json}}
      metadata: {{partition: dest}}
"""


def test_sink_writes_each_records_own_topic_a_chosen_partition_and_persisted_headers(
    kafka_bootstrap, kafka_client, spark, tmp_path
):
    src, _ = topic_names()
    kafka_client.create_topic(src, partitions=4)
    kafka_client.produce(
        src,
        [
            {"key": "a", "value": json.dumps({"id": 1, "dest": 3}), "headers": [("h", "1"), ("h", "2")]},
            {"key": "b", "value": json.dumps({"id": 2, "dest": 0}), "headers": []},
        ],
    )
    job = compile_job(tmp_path, ROUTING.format(src=src))
    run(job, kafka_bootstrap)
    consumed = kafka_client.consume(src)
    written = [r for r in consumed if json.loads(r.value).get("via") == "pipec"]
    assert sorted((r.key, r.partition) for r in written) == [(b"a", 3), (b"b", 0)]
    by_key = {r.key: r for r in written}
    # a persisted headers column (MAP, last duplicate wins) replaces the envelope's headers; metadata columns
    # are written as metadata, not into the payload
    assert by_key[b"a"].headers == [("h", b"2")]
    assert by_key[b"b"].headers == []
    # header('h') is the last value of that key (BYTES, base64 in JSON), null when absent
    assert {json.loads(r.value)["id"]: json.loads(r.value) for r in written} == {
        1: {"id": 1, "h": _b64("2"), "via": "pipec"},
        2: {"id": 2, "h": None, "via": "pipec"},
    }
