"""avro-confluent through a real Schema Registry (scripts/registry) and a real broker: generated jobs end to end.

Records are written by confluent-kafka's AvroSerializer, which registers their schemas; the job decodes each
with the writer schema its id names and resolves it to the declared columns by Avro's rules (Avro
specification, "Schema Resolution": fields matched by name, a writer field the reader lacks skipped, a reader
field the writer lacks takes the reader's default, which for pipec's reader schema is null as in Flink's
avro-confluent, int promoted to double). What the job writes is read back by confluent-kafka's
AvroDeserializer, which finds the writer schema by the id in each record. An id the registry does not know is a
record error: a dead letter with Kafka Connect's context headers, or a failed job naming the id and position.
Three JVMs (broker, registry, Spark): run under `/work/bin/jvm -2`.
"""

from __future__ import annotations

import json
import struct
import textwrap
import uuid

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient, record_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from native_plan import python_operators
from pipec.project.driver import build_all, generate_all
from pipec.testing.runner import load_job

pytestmark = [pytest.mark.kafka, pytest.mark.spark, pytest.mark.registry]

REGISTRY_ENV = "PIPEC_TEST_SCHEMA_REGISTRY_URL"
PIPELINE = """\
    version: 1
    name: {name}
    mode: {mode}
    source:
      connector: kafka
      topics: [{src}]
      properties: {{bootstrap.servers: "unused:1"}}
      value: {{format: avro-confluent, url: "${{env:{env}}}"}}
      columns:
        - {{name: id, type: BIGINT}}
        - {{name: amount, type: DOUBLE}}
        - {{name: currency, type: STRING}}
        - {{name: note, type: STRING}}
    sink:
      connector: kafka
      topic: {dst}
      value: {{format: avro-confluent, url: "${{env:{env}}}"}}
      {checkpoint}
    {errors}
"""


def order(*fields: dict) -> str:
    return json.dumps({"type": "record", "name": "Order", "namespace": "pipec.test", "fields": list(fields)})


# v1; v2 removes `note`, adds `currency` with a default and widens `amount` (BACKWARD compatible with v1)
V1 = order({"name": "id", "type": "long"}, {"name": "amount", "type": "int"}, {"name": "note", "type": "string"})
V2 = order(
    {"name": "id", "type": "long"},
    {"name": "amount", "type": "double"},
    {"name": "currency", "type": "string", "default": "EUR"},
)
# registered under the record's name (RecordNameStrategy), not the topic's subject: an id the job meets unannounced
V3 = order(
    {"name": "id", "type": "long"},
    {"name": "amount", "type": "float"},
    {"name": "note", "type": "string"},
    {"name": "channel", "type": "string", "default": "web"},
)
UNKNOWN_ID = 987654


@pytest.fixture
def registry_env(schema_registry_url, monkeypatch):
    monkeypatch.setenv(REGISTRY_ENV, schema_registry_url)
    return schema_registry_url


@pytest.fixture
def client(schema_registry_url):
    client = SchemaRegistryClient({"url": schema_registry_url})
    yield client
    client.close()


def topics(kafka_client, *names: str) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    out = [f"{n}-{tag}" for n in names]
    for name in out:
        kafka_client.create_topic(name)
    return out


def serialize(client, topic: str, schema: str, datum: dict, **conf) -> bytes:
    serializer = AvroSerializer(client, schema, conf={"auto.register.schemas": True, **conf})
    return serializer(datum, SerializationContext(topic, MessageField.VALUE))


def unknown_id_record() -> bytes:
    """Confluent framing with an id no registry has, then an Avro long (zig-zag 2)."""
    return b"\x00" + struct.pack(">I", UNKNOWN_ID) + b"\x04"


def compile_job(tmp_path, name: str, mode: str, src: str, dst: str, errors: str = ""):
    checkpoint = f"checkpoint: {tmp_path / 'ck'}\n      trigger: available-now" if mode == "streaming" else ""
    text = PIPELINE.format(
        name=name, mode=mode, src=src, dst=dst, env=REGISTRY_ENV, checkpoint=checkpoint, errors=errors
    )
    path = tmp_path / "pipeline.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = build_all([str(path)])
    result.diags.check()
    ((file, source),) = generate_all(result).items()
    (tmp_path / file).write_text(source, encoding="utf-8")
    return load_job(tmp_path / file)


def read_back(client, kafka_client, topic: str) -> tuple[list[dict | None], set[int]]:
    """The topic's values as AvroDeserializer reads them (by the id in each record), and those ids."""
    deserializer = AvroDeserializer(client)
    records = kafka_client.consume(topic)
    ids = {struct.unpack(">I", r.value[1:5])[0] for r in records if r.value is not None}
    values = [deserializer(r.value, SerializationContext(topic, MessageField.VALUE)) for r in records]
    return values, ids


def test_one_job_reads_two_schema_versions_and_its_output_reads_back_by_id(
    kafka_bootstrap, kafka_client, registry_env, client, spark, tmp_path, capsys
):
    src, dst = topics(kafka_client, "orders", "out")
    kafka_client.produce(
        src,
        [
            {"value": serialize(client, src, V1, {"id": 1, "amount": 5, "note": "first"})},
            {"value": serialize(client, src, V2, {"id": 2, "amount": 7.5, "currency": "USD"})},
            {"value": None},  # a tombstone stays one
        ],
    )
    versions = client.get_versions(f"{src}-value")
    assert len(versions) == 2  # two writer schemas under the topic's subject

    job = compile_job(tmp_path, "two_versions", "batch", src, dst)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert "[two_versions] batch: in=3 written=3" in capsys.readouterr().out

    values, ids = read_back(client, kafka_client, dst)
    assert values == [
        {"id": 1, "amount": 5.0, "currency": None, "note": "first"},  # int promoted; currency: the reader's default
        {"id": 2, "amount": 7.5, "currency": "USD", "note": None},  # note removed in v2: the reader's default
        None,
    ]
    latest = client.get_latest_version(f"{dst}-value")  # the job registered its schema under TopicNameStrategy
    assert ids == {latest.schema_id}
    assert [f["name"] for f in json.loads(latest.schema.schema_str)["fields"]] == ["id", "amount", "currency", "note"]


def test_the_record_path_is_native(kafka_bootstrap, kafka_client, registry_env, client, spark, tmp_path):
    src, dst = topics(kafka_client, "orders", "out")
    kafka_client.produce(src, [{"value": serialize(client, src, V1, {"id": 1, "amount": 5, "note": "n"})}])
    job = compile_job(tmp_path, "native", "batch", src, dst)
    rows = job.transform(job.read_source(spark, job.parse_args(["--bootstrap-servers", kafka_bootstrap])))
    assert python_operators(rows) == []
    assert rows.count() == 1


def test_an_id_the_registry_does_not_know_is_a_dead_letter_with_context_headers(
    kafka_bootstrap, kafka_client, registry_env, client, spark, tmp_path, capsys
):
    src, dst, dlq = topics(kafka_client, "orders", "out", "dlq")
    produced = kafka_client.produce(
        src,
        [
            {"value": serialize(client, src, V1, {"id": 1, "amount": 5, "note": "good"})},
            {"key": b"k", "value": unknown_id_record(), "headers": [("trace", b"t1")]},
        ],
    )
    errors = (
        f"errors: {{tolerance: all, deadletterqueue.topic.name: {dlq}, deadletterqueue.context.headers.enable: true}}"
    )
    job = compile_job(tmp_path, "unknown_id", "batch", src, dst, errors)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    out = capsys.readouterr()
    assert "[unknown_id] batch: in=2 written=1 filtered=0 superseded=0 dead_lettered=1" in out.out
    assert f"fetched schema id {UNKNOWN_ID} of source.value: not in the registry" in out.err

    values, _ = read_back(client, kafka_client, dst)
    assert values == [{"id": 1, "amount": 5.0, "currency": None, "note": "good"}]
    (letter,) = kafka_client.consume(dlq)
    assert (letter.key, letter.value) == (b"k", produced[1].value)  # untouched
    assert letter.headers == [("trace", b"t1")] + [
        ("__connect.errors.topic", src.encode()),
        ("__connect.errors.partition", b"0"),
        ("__connect.errors.offset", b"1"),
        ("__connect.errors.stage", b"VALUE_CONVERTER"),
        ("__connect.errors.class.name", b"io.confluent.connect.avro.AvroConverter"),
        (
            "__connect.errors.exception.message",
            f"source value: schema id {UNKNOWN_ID} is not in the Schema Registry (topic {src}, partition 0, offset 1)".encode(),
        ),
        ("__connect.errors.connector.name", b"unknown_id"),
    ]


def test_streaming_fetches_an_id_it_meets_and_runs_again_from_its_checkpoint(
    kafka_bootstrap, kafka_client, registry_env, client, spark, tmp_path, capsys
):
    src, dst = topics(kafka_client, "orders", "out")
    by_record_name = {"subject.name.strategy": record_subject_name_strategy}
    # the unannounced id first: the micro-batch stops before writing anything, so the rerun writes each record once
    kafka_client.produce(
        src,
        [
            {
                "value": serialize(
                    client, src, V3, {"id": 3, "amount": 1.5, "note": "n3", "channel": "app"}, **by_record_name
                )
            },
            {"value": serialize(client, src, V1, {"id": 1, "amount": 5, "note": "n1"})},
        ],
    )
    v3_id = client.get_latest_version("pipec.test.Order").schema_id
    job = compile_job(tmp_path, "unannounced", "streaming", src, dst)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 0
    assert f"[unannounced] fetched schema id {v3_id} of source.value\n" in capsys.readouterr().err
    values, _ = read_back(client, kafka_client, dst)
    assert values == [
        {"id": 3, "amount": 1.5, "currency": None, "note": "n3"},  # float promoted; channel skipped
        {"id": 1, "amount": 5.0, "currency": None, "note": "n1"},
    ]


def test_tolerance_none_fails_naming_the_unknown_id_and_its_position(
    kafka_bootstrap, kafka_client, registry_env, client, spark, tmp_path, capsys
):
    src, dst = topics(kafka_client, "orders", "out")
    kafka_client.produce(
        src,
        [
            {"value": serialize(client, src, V1, {"id": 1, "amount": 5, "note": "good"})},
            {"value": unknown_id_record()},
        ],
    )
    job = compile_job(tmp_path, "unknown_fails", "streaming", src, dst)
    assert job.main(["--bootstrap-servers", kafka_bootstrap]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"[unknown_fails] fetched schema id {UNKNOWN_ID} of source.value: not in the registry",
        f"unknown_fails: failed: record error: source value: schema id {UNKNOWN_ID} is not in the Schema Registry "
        f"(topic {src}, partition 0, offset 1)",
    ]
