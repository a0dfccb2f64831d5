"""bench/peer_compare.py reads Kafka's schemaless output in pipec's value type as the reference documents it (a field
the JSON lacked is absent, a null nested map stays one null field, InsertField's timestamp is epoch millis) and
reports every other difference. Kafka's lines are written by hand here, in the shape ConnectPeer.java dumps."""

from __future__ import annotations

import json

from pyspark.sql.types import LongType, StringType, StructField, StructType, TimestampType

from bench.peer_compare import ABSENT, NULL_MAP, compare

VALUE_TYPE = StructType(
    [
        StructField("id", LongType()),
        StructField("customer_address_city", StringType()),
        StructField("customer_address_zip", StringType()),
        StructField("note", StringType()),
        StructField("kafka_ts", TimestampType()),
    ]
)
PIPEC_VALUE = {
    "id": 7,
    "customer_address_city": None,
    "customer_address_zip": None,
    "note": None,
    "kafka_ts": "2024-01-01T00:00:07.000Z",
}


def _kafka(value: dict, i: int = 0) -> dict:
    return {
        "i": i,
        "topic": "orders-clean",
        "key": json.dumps({"id": value.get("id", 7)}),
        "value": json.dumps(value),
        "headers": [["order-id", "7"]],
    }


def _pipec(value: dict) -> dict:
    return {
        "topic": "orders-clean",
        "key": json.dumps({"id": value["id"]}).encode(),
        "value": json.dumps(value).encode(),
        "headers": [{"key": "order-id", "value": b"7"}],
    }


def test_a_null_map_and_absent_fields_read_as_pipec_nulls():
    kafka = _kafka({"id": 7, "customer_address": None, "kafka_ts": 1704067207000})
    problems, seen = compare([kafka], [_pipec(PIPEC_VALUE)], VALUE_TYPE, "_")
    assert problems == []
    assert seen[NULL_MAP] == 2 and seen[ABSENT] == 1 and seen["kept"] == 1


def test_a_different_value_is_reported():
    kafka = _kafka({"id": 7, "customer_address": None, "note": "x", "kafka_ts": 1704067207000})
    problems, _ = compare([kafka], [_pipec(PIPEC_VALUE)], VALUE_TYPE, "_")
    assert len(problems) == 1 and "'note': 'x'" in problems[0]


def test_a_field_outside_pipecs_type_is_reported():
    kafka = _kafka({"id": 7, "customer_address": None, "extra": 1, "kafka_ts": 1704067207000})
    problems, _ = compare([kafka], [_pipec(PIPEC_VALUE)], VALUE_TYPE, "_")
    assert len(problems) == 1 and "extra" in problems[0]


def test_a_later_timestamp_is_reported():
    kafka = _kafka({"id": 7, "customer_address": None, "kafka_ts": 1704067208000})
    problems, _ = compare([kafka], [_pipec(PIPEC_VALUE)], VALUE_TYPE, "_")
    assert len(problems) == 1 and "kafka_ts" in problems[0]


def test_records_kept_by_one_side_only_and_kafka_errors_are_reported():
    dropped = {"i": 0, "dropped": True}
    failed = {"i": 1, "error": "org.apache.kafka.connect.errors.DataException: boom"}
    kept = _kafka({"id": 8, "customer_address": None, "kafka_ts": 1704067207000}, i=2)
    problems, seen = compare([dropped, failed, kept], [_pipec(PIPEC_VALUE)], VALUE_TYPE, "_")
    assert seen["dropped"] == 1
    assert any("Kafka failed it" in p for p in problems)
    assert any("pipec wrote nothing for key {'id': 8}" in p for p in problems)
    assert any("pipec wrote key 7 where Kafka dropped" in p for p in problems)
