"""The session's registry speaks Confluent's Schema Registry protocol to Confluent's own client.

Expectations are Confluent's documented behaviour (Schema Registry API reference; the wire format of
confluent-kafka's AvroSerializer: magic byte 0, the schema id as a 4-byte big-endian int, the Avro binary
body), never the registry's own answers: ids are per schema content, versions count from 1 per subject,
BACKWARD refuses a new field without a default, and errors carry Confluent's error codes.
"""

from __future__ import annotations

import io
import json
import struct

import fastavro
import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient, SchemaRegistryError
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

pytestmark = pytest.mark.registry


def record_schema(*fields: dict) -> Schema:
    """An Avro record schema `Order` with the given fields, as confluent-kafka's Schema."""
    return Schema(
        json.dumps({"type": "record", "name": "Order", "namespace": "pipec.test", "fields": list(fields)}), "AVRO"
    )


ID = {"name": "id", "type": "long"}
AMOUNT = {"name": "amount", "type": "double"}
CURRENCY_WITH_DEFAULT = {"name": "currency", "type": "string", "default": "EUR"}
CURRENCY_REQUIRED = {"name": "currency", "type": "string"}
V1 = record_schema(ID, AMOUNT)
V2 = record_schema(ID, AMOUNT, CURRENCY_WITH_DEFAULT)


def parsed(schema: Schema | str) -> dict:
    return json.loads(schema if isinstance(schema, str) else schema.schema_str)


def error_of(call) -> SchemaRegistryError:
    with pytest.raises(SchemaRegistryError) as caught:
        call()
    return caught.value


def test_script_status_and_second_start_report_the_running_registry(schema_registry_url, registry_script):
    if registry_script is None:
        pytest.skip("PIPEC_SCHEMA_REGISTRY_URL: an external registry, not started by scripts/registry")
    assert schema_registry_url.startswith("http://127.0.0.1:")
    assert schema_registry_url.endswith("/apis/ccompat/v7")
    status = registry_script("status")
    assert status.returncode == 0 and status.stdout.strip() == schema_registry_url
    again = registry_script("start")
    assert again.returncode == 0 and again.stdout.strip() == schema_registry_url
    assert "already running" in again.stderr


def test_register_then_fetch_by_id_and_subject(schema_registry_client: SchemaRegistryClient, subject):
    schema_id = schema_registry_client.register_schema(subject, V1)
    assert schema_id > 0
    # the same schema again: the same id, no second version
    assert schema_registry_client.register_schema(subject, V1) == schema_id
    assert parsed(schema_registry_client.get_schema(schema_id)) == parsed(V1)
    assert subject in schema_registry_client.get_subjects()
    assert schema_registry_client.get_versions(subject) == [1]
    found = schema_registry_client.lookup_schema(subject, V1)
    assert (found.schema_id, found.subject, found.version) == (schema_id, subject, 1)
    latest = schema_registry_client.get_latest_version(subject)
    assert (latest.schema_id, latest.version) == (schema_id, 1)
    assert parsed(latest.schema) == parsed(V1)


def test_ids_are_per_schema_content_across_subjects(schema_registry_client: SchemaRegistryClient, subject):
    first = schema_registry_client.register_schema(subject, V1)
    other_subject = subject.replace("-value", "-key")
    assert schema_registry_client.register_schema(other_subject, V1) == first
    assert schema_registry_client.register_schema(other_subject, V2) != first


def test_second_version_with_a_default_is_backward_compatible(schema_registry_client: SchemaRegistryClient, subject):
    assert schema_registry_client.get_compatibility() == "BACKWARD"  # Confluent's default global level
    v1_id = schema_registry_client.register_schema(subject, V1)
    assert schema_registry_client.test_compatibility(subject, V2) is True
    v2_id = schema_registry_client.register_schema(subject, V2)
    assert v2_id != v1_id
    assert schema_registry_client.get_versions(subject) == [1, 2]
    latest = schema_registry_client.get_latest_version(subject)
    assert (latest.schema_id, latest.version) == (v2_id, 2)
    first = schema_registry_client.get_version(subject, 1)
    assert (first.schema_id, parsed(first.schema)) == (v1_id, parsed(V1))


def test_backward_refuses_a_new_field_without_default(schema_registry_client: SchemaRegistryClient, subject):
    schema_registry_client.register_schema(subject, V1)
    breaking = record_schema(ID, AMOUNT, CURRENCY_REQUIRED)
    assert schema_registry_client.test_compatibility(subject, breaking) is False
    refused = error_of(lambda: schema_registry_client.register_schema(subject, breaking))
    assert (refused.http_status_code, refused.error_code) == (409, 409)
    assert schema_registry_client.get_versions(subject) == [1]  # nothing registered


def test_subject_compatibility_overrides_the_global_level(schema_registry_client: SchemaRegistryClient, subject):
    schema_registry_client.register_schema(subject, V1)
    # FORWARD: old readers can read new data, so a new field needs no default (BACKWARD refuses it)
    assert schema_registry_client.set_compatibility(subject, "FORWARD")["compatibility"] == "FORWARD"
    assert schema_registry_client.get_compatibility(subject) == "FORWARD"
    assert schema_registry_client.get_compatibility() == "BACKWARD"
    breaking = record_schema(ID, AMOUNT, CURRENCY_REQUIRED)
    schema_registry_client.register_schema(subject, breaking)
    assert schema_registry_client.get_versions(subject) == [1, 2]
    # ... and refuses a removed field without a default, which BACKWARD would accept
    assert schema_registry_client.test_compatibility(subject, record_schema(ID, CURRENCY_REQUIRED)) is False


def test_errors_carry_confluents_error_codes(schema_registry_client: SchemaRegistryClient, subject):
    missing_subject = error_of(lambda: schema_registry_client.get_latest_version(subject))
    assert (missing_subject.http_status_code, missing_subject.error_code) == (404, 40401)
    schema_registry_client.register_schema(subject, V1)
    missing_version = error_of(lambda: schema_registry_client.get_version(subject, 7))
    assert (missing_version.http_status_code, missing_version.error_code) == (404, 40402)
    missing_id = error_of(lambda: schema_registry_client.get_schema(2_000_000_000))
    assert (missing_id.http_status_code, missing_id.error_code) == (404, 40403)
    invalid = error_of(lambda: schema_registry_client.register_schema(subject, Schema('{"type": "record"', "AVRO")))
    assert (invalid.http_status_code, invalid.error_code) == (422, 42201)


def test_serializer_registers_and_frames_records_deserializer_reads_them(schema_registry_url, subject):
    topic = subject.removesuffix("-value")
    context = SerializationContext(topic, MessageField.VALUE)
    registry = SchemaRegistryClient({"url": schema_registry_url})
    serialize_v1 = AvroSerializer(registry, V1.schema_str)  # auto.register.schemas: under <topic>-value
    framed = serialize_v1({"id": 7, "amount": 12.5}, context)

    # Confluent's wire format: magic byte 0, the registered id (big-endian int32), the Avro binary body
    v1_id = registry.get_latest_version(subject).schema_id
    assert framed[0] == 0
    assert struct.unpack(">i", framed[1:5])[0] == v1_id
    body = fastavro.schemaless_reader(io.BytesIO(framed[5:]), fastavro.parse_schema(parsed(V1)))
    assert body == {"id": 7, "amount": 12.5}

    # A fresh client (empty caches) reads the writer schema by id from the registry.
    reader = SchemaRegistryClient({"url": schema_registry_url})
    assert AvroDeserializer(reader)(framed, context) == {"id": 7, "amount": 12.5}

    # A second version, then a reader on it: v1 records get the default by Avro's resolution rules.
    framed_v2 = AvroSerializer(registry, V2.schema_str)({"id": 8, "amount": 1.0, "currency": "USD"}, context)
    assert struct.unpack(">i", framed_v2[1:5])[0] == reader.get_latest_version(subject).schema_id != v1_id
    as_v2 = AvroDeserializer(reader, V2.schema_str)
    assert as_v2(framed, context) == {"id": 7, "amount": 12.5, "currency": "EUR"}
    assert as_v2(framed_v2, context) == {"id": 8, "amount": 1.0, "currency": "USD"}
    assert registry.get_versions(subject) == [1, 2]
