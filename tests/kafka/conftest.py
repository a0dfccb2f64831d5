"""Kafka fixtures: one real single-node broker per test session (scripts/kafka) and a confluent-kafka helper.

`kafka_bootstrap` starts the broker in a private state dir (the jars are fetched from Maven Central on
first use and cached in $PIPEC_CACHE) and stops it at the end of the session. Set PIPEC_KAFKA_BOOTSTRAP to
use a broker that is already running instead. `kafka_client` creates topics, produces records and reads
them back with their partition, offset, timestamp, timestamp type and headers.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from confluent_kafka import (
    OFFSET_BEGINNING,
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaException,
    Producer,
    TopicPartition,
)
from confluent_kafka.admin import AdminClient, NewTopic
from kafka_broker import start_broker, stop_broker

TIMEOUT_S = 30.0
TIMESTAMP_TYPES = {TIMESTAMP_CREATE_TIME: "CreateTime", TIMESTAMP_LOG_APPEND_TIME: "LogAppendTime"}

Headers = Sequence[tuple[str, "bytes | str | None"]]


@dataclass
class ProducerRecord:
    """One record to produce. partition None: the partitioner picks (murmur2 of the key, as Java's
    default partitioner); timestamp None: the producer's clock at send (CreateTime either way)."""

    value: bytes | str | None
    key: bytes | str | None = None
    headers: Headers = ()
    partition: int | None = None
    timestamp: int | None = None  # epoch milliseconds


@dataclass
class ConsumedRecord:
    """A record read back from the broker, as stored."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)  # in order, duplicates kept
    timestamp: int | None = None  # epoch milliseconds
    timestamp_type: str = "NoTimestampType"  # "CreateTime" or "LogAppendTime"

    @property
    def timestamp_type_id(self) -> int:
        """Java's TimestampType id, as in Spark's Kafka `timestampType` column (0 CreateTime, 1 LogAppendTime)."""
        return {"CreateTime": 0, "LogAppendTime": 1}.get(self.timestamp_type, -1)


def murmur2(data: bytes) -> int:
    """Kafka's Utils.murmur2 (seed 0x9747b28c) as an unsigned 32-bit int."""
    length = len(data)
    m = 0x5BD1E995
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(0, length - length % 4, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail, rem = length & ~3, length % 4
    if rem == 3:
        h ^= data[tail + 2] << 16
    if rem >= 2:
        h ^= data[tail + 1] << 8
    if rem >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h


def partition_for(key: bytes | str, partitions: int) -> int:
    """The partition Java's default partitioner (and librdkafka's murmur2) gives a non-null key."""
    data = key.encode("utf-8") if isinstance(key, str) else key
    return (murmur2(data) & 0x7FFFFFFF) % partitions


class KafkaClient:
    """Topics, producing and consuming against the session's broker (confluent-kafka)."""

    def __init__(self, bootstrap: str, admin: AdminClient):
        self.bootstrap = bootstrap
        self.admin = admin
        # murmur2_random: keyed records land where a Java producer (Spark's Kafka sink) puts them.
        # Idempotence: a retried request (e.g. right after a topic is created) cannot reorder or duplicate.
        self._producer = Producer(
            {
                "bootstrap.servers": bootstrap,
                "partitioner": "murmur2_random",
                "enable.idempotence": True,
                "acks": "all",
                "linger.ms": 0,
            }
        )

    partition_for = staticmethod(partition_for)

    def create_topic(self, name: str | None = None, partitions: int = 1, config: dict[str, str] | None = None) -> str:
        """Create a topic (a unique name unless given) and wait until every partition has a leader."""
        name = name or f"pipec-test-{uuid.uuid4().hex[:12]}"
        topic = NewTopic(name, num_partitions=partitions, replication_factor=1, config=config or {})
        self.admin.create_topics([topic], operation_timeout=TIMEOUT_S)[name].result(TIMEOUT_S)
        self.wait_for_topic(name, partitions)
        return name

    def wait_for_topic(self, name: str, partitions: int | None = None) -> int:
        """Wait until the topic has (`partitions`) partitions that all have a leader; returns their number."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            meta = self.admin.list_topics(name, timeout=TIMEOUT_S).topics.get(name)
            if meta is not None and meta.error is None and meta.partitions:
                ready = all(p.leader >= 0 and p.error is None for p in meta.partitions.values())
                if ready and (partitions is None or len(meta.partitions) == partitions):
                    return len(meta.partitions)
            if time.monotonic() > deadline:
                raise TimeoutError(f"topic {name} not ready after {TIMEOUT_S}s: {meta}")
            time.sleep(0.05)

    def delete_topic(self, name: str) -> None:
        self.admin.delete_topics([name], operation_timeout=TIMEOUT_S)[name].result(TIMEOUT_S)

    def produce(self, topic: str, records: Iterable[ProducerRecord | dict[str, Any]]) -> list[ConsumedRecord]:
        """Produce records in order and wait for every acknowledgement; returns each record as the broker
        stored it (partition, offset, timestamp), in the order given."""
        records = [r if isinstance(r, ProducerRecord) else ProducerRecord(**r) for r in records]
        delivered: list[Any] = [None] * len(records)

        def report(index: int):
            def on_delivery(err, msg):
                delivered[index] = err if err is not None else msg

            return on_delivery

        for index, record in enumerate(records):
            kwargs: dict[str, Any] = {"key": record.key, "value": record.value, "on_delivery": report(index)}
            if record.headers:
                kwargs["headers"] = list(record.headers)
            if record.partition is not None:
                kwargs["partition"] = record.partition
            if record.timestamp is not None:
                kwargs["timestamp"] = record.timestamp
            self._producer.produce(topic, **kwargs)
            self._producer.poll(0)
        remaining = self._producer.flush(TIMEOUT_S)
        if remaining:
            raise TimeoutError(f"{remaining} record(s) to {topic} not acknowledged after {TIMEOUT_S}s")
        errors = [d for d in delivered if not hasattr(d, "offset")]
        if errors:
            raise KafkaException(errors[0])
        return [_record(msg) for msg in delivered]

    def consume(self, topic: str, partitions: Sequence[int] | None = None) -> list[ConsumedRecord]:
        """Every record of the topic (or of the given partitions) from the beginning up to the end offsets
        at the time of the call, ordered by (partition, offset). No consumer group offsets are committed."""
        if partitions is None:
            partitions = range(self.wait_for_topic(topic))
        consumer = Consumer(
            {
                "bootstrap.servers": self.bootstrap,
                "group.id": f"pipec-test-{uuid.uuid4().hex[:12]}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "enable.partition.eof": False,
            }
        )
        try:
            ends = {}
            for p in partitions:
                low, high = consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=TIMEOUT_S)
                if high > low:
                    ends[p] = high
            if not ends:
                return []
            consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in ends])
            out: list[ConsumedRecord] = []
            deadline = time.monotonic() + TIMEOUT_S
            pending = dict(ends)
            while pending:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"consuming {topic}: partitions {sorted(pending)} not read to their end")
                msg = consumer.poll(0.2)
                if msg is None:
                    continue
                if msg.error():
                    raise KafkaException(msg.error())
                out.append(_record(msg))
                if msg.partition() in pending and msg.offset() + 1 >= pending[msg.partition()]:
                    del pending[msg.partition()]
            return sorted(out, key=lambda r: (r.partition, r.offset))
        finally:
            consumer.close()

    def close(self) -> None:
        """Flush and drop the clients (librdkafka would keep reconnecting to the stopped broker)."""
        self._producer.flush(TIMEOUT_S)
        del self._producer
        del self.admin


def _record(msg) -> ConsumedRecord:
    ts_type, ts = msg.timestamp()
    return ConsumedRecord(
        topic=msg.topic(),
        partition=msg.partition(),
        offset=msg.offset(),
        key=msg.key(),
        value=msg.value(),
        headers=list(msg.headers() or []),
        timestamp=ts if ts_type in TIMESTAMP_TYPES else None,
        timestamp_type=TIMESTAMP_TYPES.get(ts_type, "NoTimestampType"),
    )


@pytest.fixture(scope="session")
def kafka_state_dir():
    """The session broker's state dir (None with PIPEC_KAFKA_BOOTSTRAP: an external broker)."""
    if os.environ.get("PIPEC_KAFKA_BOOTSTRAP"):
        yield None
        return
    path = tempfile.mkdtemp(prefix="pipec-kafka-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def kafka_bootstrap(kafka_state_dir):
    """Bootstrap servers ("127.0.0.1:PORT") of the session's broker: started once, stopped at the end."""
    external = os.environ.get("PIPEC_KAFKA_BOOTSTRAP")
    if external:
        yield external
        return
    bootstrap = start_broker(kafka_state_dir)
    try:
        yield bootstrap
    finally:
        stop_broker(kafka_state_dir)


@pytest.fixture(scope="session")
def kafka_admin(kafka_bootstrap):
    """confluent-kafka's AdminClient for the session's broker."""
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    yield admin
    del admin


@pytest.fixture(scope="session")
def kafka_client(kafka_bootstrap, kafka_admin):
    """KafkaClient: create_topic, produce, consume, partition_for."""
    client = KafkaClient(kafka_bootstrap, kafka_admin)
    yield client
    client.close()
