"""The session's Kafka broker works: records go in and come back with keys, values, headers, partitions,
offsets, timestamps and timestamp types intact."""

from __future__ import annotations

import time
from collections import defaultdict

import pytest
from kafka_broker import broker_status

pytestmark = pytest.mark.kafka

KEYS = ["user-1", "user-2", "user-4", "user-5", "user-8"]  # murmur2 % 3 puts them on all three partitions


def test_round_trip_keys_values_headers_timestamps(kafka_client):
    partition_for = kafka_client.partition_for
    assert {partition_for(k, 3) for k in KEYS} == {0, 1, 2}
    topic = kafka_client.create_topic(partitions=3)
    base = (int(time.time()) - 3600) * 1000  # an hour ago, whole seconds: clearly not the broker's clock
    records = [
        {
            "key": KEYS[i % len(KEYS)],
            "value": f'{{"n": {i}}}',
            "headers": [("trace", f"first-{i}".encode()), ("trace", f"second-{i}".encode())],
            "timestamp": base + i * 1000 if i % 2 == 0 else None,  # odd ones: the producer's clock
        }
        for i in range(10)
    ]
    before = int(time.time() * 1000)
    delivered = kafka_client.produce(topic, records)
    after = int(time.time() * 1000)

    consumed = kafka_client.consume(topic)
    assert len(consumed) == 10
    by_value = {r.value: r for r in consumed}
    assert len(by_value) == 10

    for i, (sent, ack) in enumerate(zip(records, delivered)):
        got = by_value[f'{{"n": {i}}}'.encode()]
        assert got.topic == topic
        assert got.key == sent["key"].encode()
        # both headers, same key, in the order sent
        assert got.headers == [("trace", f"first-{i}".encode()), ("trace", f"second-{i}".encode())]
        # the partition and offset the producer was told are where the record is
        assert (got.partition, got.offset) == (ack.partition, ack.offset)
        # keyed records: the partition is murmur2(key) % 3, as with Java's default partitioner
        assert got.partition == partition_for(sent["key"], 3)
        assert got.timestamp_type == "CreateTime" and got.timestamp_type_id == 0
        if sent["timestamp"] is not None:
            assert got.timestamp == sent["timestamp"]
        else:
            assert before - 1 <= got.timestamp <= after + 1
        assert got.timestamp == ack.timestamp

    # one key, one partition; offsets within a partition follow the produce order
    partitions_of_key = defaultdict(set)
    for r in consumed:
        partitions_of_key[r.key].add(r.partition)
    assert all(len(ps) == 1 for ps in partitions_of_key.values())
    assert {r.partition for r in consumed} == {0, 1, 2}
    for p in range(3):
        in_partition = [r for r in consumed if r.partition == p]
        assert [r.offset for r in in_partition] == list(range(len(in_partition)))
        produced_order = [int(r.value[6:-1]) for r in in_partition]
        assert produced_order == sorted(produced_order)


def test_explicit_partition_nulls_and_far_timestamps(kafka_client):
    topic = kafka_client.create_topic(partitions=2)
    past, future = 1_000_000_000_000, 4_102_444_800_000  # 2001-09-09 and 2100-01-01: kept, not rejected
    kafka_client.produce(
        topic,
        [
            {
                "key": None,
                "value": b"\x00\xff",
                "partition": 1,
                "headers": [("h", None), ("h", b"")],
                "timestamp": past,
            },
            {"key": b"k", "value": None, "partition": 0, "timestamp": future},
        ],
    )
    first, second = kafka_client.consume(topic)
    assert (first.partition, first.offset, first.key, first.value, first.headers) == (0, 0, b"k", None, [])
    assert (first.timestamp, first.timestamp_type) == (future, "CreateTime")
    assert (second.partition, second.offset, second.key, second.value) == (1, 0, None, b"\x00\xff")
    assert second.headers == [("h", None), ("h", b"")]
    assert (second.timestamp, second.timestamp_type) == (past, "CreateTime")


def test_topics_are_auto_created_with_one_partition(kafka_client):
    topic = f"auto-{time.monotonic_ns()}"
    kafka_client.produce(topic, [{"key": "a", "value": "1"}])
    assert kafka_client.wait_for_topic(topic) == 1
    assert [r.value for r in kafka_client.consume(topic)] == [b"1"]


def test_status_reports_the_session_broker(kafka_bootstrap, kafka_state_dir):
    if kafka_state_dir is None:
        pytest.skip("PIPEC_KAFKA_BOOTSTRAP: an external broker")
    assert kafka_bootstrap.startswith("127.0.0.1:")
    assert broker_status(kafka_state_dir) == kafka_bootstrap
