"""The Kafka Connect peer of `scripts/bench connect-peer` writes what the compiled job writes: the benchmark's chain in
the order Kafka's classes can run it (bench/peer_side.py, `peer_chain`) goes through bench/ConnectPeer.java (Kafka
Connect's JsonConverter without schemas, SimpleHeaderConverter and transform classes, from the jars
scripts/fetch-kafka-jars fetches) and through the generated job on Spark, on the same Kafka records; the records
kept, dropped and written must be the same, Kafka's schemaless values read in pipec's type (bench/peer_compare.py;
differences.py: `schemaless-peer`)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import yaml
from differences import BY_ID

from bench.generate import kafka_records
from bench.peer_compare import ABSENT, NULL_MAP, compare
from bench.peer_side import CHAIN, Peer, compile_peer, export_records, peer_chain, write_pipeline
from bench.plans import compile_job

pytestmark = [pytest.mark.spark, pytest.mark.differential]
RECORDS = 2000  # bench/generate.py's records: every 50th card null, every 101st address null, every 100th a test


def _record(id_: int, value: dict, headers: list[tuple[str, bytes]]):
    """One raw Kafka row like bench/generate.py's, with a value written by hand (explicit JSON nulls)."""
    from pyspark.sql import Row

    at = dt.datetime(2024, 3, 1, 12, 30, tzinfo=dt.timezone.utc)
    return Row(
        key=json.dumps({"id": id_}).encode(),
        value=json.dumps(value).encode(),
        topic="orders-raw",
        partition=3,
        offset=id_,
        timestamp=at,
        timestampType=0,
        headers=[Row(key=k, value=v) for k, v in headers],
    )


def _explicit_nulls(spark, raw_schema):
    """Values the generator never writes: a null nested map (`address`, the whole `customer`) given as JSON null."""
    base = {"amount": "12.50", "quantity": 2, "status": "new", "ts": 1709296200000, "internal": "x"}
    customer = {"name": "Ana", "email": "ana@example.com", "card": None, "address": None}
    rows = [
        _record(900001, {"id": 900001, "customer": customer, **base}, [("trace-id", b"t-a")]),
        _record(900002, {"id": 900002, "customer": None, **base}, [("src", b"app")]),
    ]
    return spark.createDataFrame(rows, raw_schema)


@pytest.fixture(scope="module")
def both_sides(spark, kafka_classpath, tmp_path_factory):
    folder = tmp_path_factory.mktemp("connect-peer")
    doc = peer_chain(yaml.safe_load(CHAIN.read_text(encoding="utf-8")))
    job = compile_job(write_pipeline(doc, folder), folder)
    for key, value in job.SESSION_CONF.items():
        spark.conf.set(key, value)
    generated = kafka_records(spark, RECORDS, partitions=1)
    raw = generated.unionByName(_explicit_nulls(spark, generated.schema)).coalesce(1).cache()
    export_records(raw, folder / "records")
    classes = compile_peer(kafka_classpath, folder / "classes")
    with Peer(classes, kafka_classpath, folder / "records", doc) as peer:
        kafka = peer.dump(RECORDS + 2)
    value_type = job.chain(job.decode(raw)).schema["value"].dataType
    rows = job.transform(raw).collect()
    raw.unpersist()
    return kafka, rows, value_type


def test_kafka_connect_writes_what_the_compiled_job_writes(both_sides):
    kafka, rows, value_type = both_sides
    problems, seen = compare(kafka, rows, value_type, delimiter="_")
    assert not problems, "\n".join(problems[:10])
    assert seen["dropped"] == RECORDS // 100  # the records with a `test` header (Filter when HasHeaderKey)
    assert seen["kept"] == len(rows) == RECORDS - RECORDS // 100 + 2
    assert seen[ABSENT] and seen[NULL_MAP], seen  # both readings of the schemaless value were needed


def test_kafka_keeps_a_null_nested_map_as_one_null_field(both_sides):
    """What `schemaless-peer` says of Kafka, seen in Kafka's own output (reference section 3.5)."""
    kafka, _, _ = both_sides
    values = {json.loads(line["key"])["id"]: json.loads(line["value"]) for line in kafka if "value" in line}
    assert values[900001]["customer_address"] is None and "customer_address_city" not in values[900001]
    assert values[900002]["customer"] is None and "name" not in values[900002]
    assert values[900002]["customer_card"] is None  # MaskField's schemaless put of a field the map lacked
    assert values[900001]["kafka_ts"] == 1709296200000  # InsertField's schemaless timestamp: epoch millis
    assert BY_ID["schemaless-peer"].kind == "model"
