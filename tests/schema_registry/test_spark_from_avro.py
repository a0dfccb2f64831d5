"""What Spark's from_avro does with a writer schema and an evolved reader schema (the `avroSchema` option).

The facts the registry-aware `avro-confluent` decoder builds on (docs/design/avro-registry.md). Expectations are
Avro's schema resolution rules (Avro specification, "Schema Resolution"): fields are matched by name (or a reader
field's alias), writer fields the reader lacks are skipped, reader fields the writer lacks take their default,
int/long/float promote to long/float/double, string and bytes convert both ways, an enum symbol the reader lacks
takes the reader's enum default; a reader field without default that the writer lacks is an error. Records are
written by fastavro and by confluent-kafka's AvroSerializer through the session's registry (Confluent's 5-byte
header stripped with a native `substring`), decoded by spark-avro.
"""

from __future__ import annotations

import io
import json
import struct

import fastavro
import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

pytestmark = pytest.mark.spark

BODY = "substring(value, 6)"  # Confluent's framing: magic byte 0, a 4-byte schema id, then the Avro body


def record(*fields: dict, name: str = "Order") -> dict:
    return {"type": "record", "name": name, "namespace": "pipec.test", "fields": list(fields)}


def field(name: str, avro_type, **extra) -> dict:
    return {"name": name, "type": avro_type, **extra}


def framed(schema: dict, datum: dict, schema_id: int = 1) -> bytes:
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(schema), datum)
    return b"\x00" + struct.pack(">i", schema_id) + body.getvalue()


def decode(spark, values: list[bytes], writer: dict, reader: dict | None, mode: str = "FAILFAST"):
    """The rows of from_avro(body, writer, {avroSchema: reader, mode}) over Confluent-framed values."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    options = {"mode": mode, **({"avroSchema": json.dumps(reader)} if reader is not None else {})}
    df = spark.createDataFrame([(v,) for v in values], "value BINARY")
    return df.select(from_avro(F.expr(BODY), json.dumps(writer), options).alias("r"))


ENUM_ABC = {"type": "enum", "name": "Level", "symbols": ["A", "B", "C"]}
ENUM_AB_DEFAULT_A = {"type": "enum", "name": "Level", "symbols": ["A", "B"], "default": "A"}

# label, writer fields, reader fields, the datum written, the row read
RESOLUTION = [
    (
        "added field with default",
        [field("id", "long")],
        [field("id", "long"), field("currency", "string", default="EUR")],
        {"id": 1},
        {"id": 1, "currency": "EUR"},
    ),
    (
        "added nullable field, default null",
        [field("id", "long")],
        [field("id", "long"), field("note", ["null", "string"], default=None)],
        {"id": 1},
        {"id": 1, "note": None},
    ),
    (
        "removed field",
        [field("id", "long"), field("gone", "string"), field("amount", "int")],
        [field("id", "long"), field("amount", "int")],
        {"id": 1, "gone": "x", "amount": 5},
        {"id": 1, "amount": 5},
    ),
    ("int -> long", [field("id", "int")], [field("id", "long")], {"id": 2**31 - 1}, {"id": 2**31 - 1}),
    (
        "int, long, float -> double",
        [field("a", "int"), field("b", "long"), field("c", "float")],
        [field("a", "double"), field("b", "double"), field("c", "double")],
        {"a": 3, "b": 4, "c": 1.5},
        {"a": 3.0, "b": 4.0, "c": 1.5},
    ),
    (
        "string <-> bytes",
        [field("s", "string"), field("b", "bytes")],
        [field("s", "bytes"), field("b", "string")],
        {"s": "hé", "b": b"ok"},
        {"s": bytearray("hé".encode()), "b": "ok"},
    ),
    (
        "reordered fields",
        [field("a", "int"), field("b", "string"), field("c", "long")],
        [field("c", "long"), field("a", "int"), field("b", "string")],
        {"a": 1, "b": "x", "c": 3},
        {"c": 3, "a": 1, "b": "x"},
    ),
    (
        "plain writer type -> nullable reader union, with promotion (pipec's derived reader schema)",
        [field("id", "int"), field("s", "string")],
        [field("id", ["null", "long"], default=None), field("s", ["null", "string"], default=None)],
        {"id": 7, "s": "v"},
        {"id": 7, "s": "v"},
    ),
    (
        "renamed through a reader alias",
        [field("old_name", "string")],
        [field("new_name", "string", aliases=["old_name"])],
        {"old_name": "v"},
        {"new_name": "v"},
    ),
    (
        "enum symbol unknown to the reader -> enum default",
        [field("e", ENUM_ABC)],
        [field("e", ENUM_AB_DEFAULT_A)],
        {"e": "C"},
        {"e": "A"},
    ),
    (
        "nested record: promotion and an added field",
        [field("n", record(field("x", "int"), name="Inner"))],
        [field("n", record(field("x", "long"), field("y", "string", default="d"), name="Inner"))],
        {"n": {"x": 1}},
        {"n": {"x": 1, "y": "d"}},
    ),
]


@pytest.mark.parametrize("label, writer, reader, datum, expected", RESOLUTION, ids=[r[0] for r in RESOLUTION])
def test_from_avro_resolves_the_writer_schema_to_the_avroSchema_option(spark, label, writer, reader, datum, expected):
    rows = decode(spark, [framed(record(*writer), datum)], record(*writer), record(*reader)).collect()
    assert [r.r.asDict(recursive=True) for r in rows] == [expected]
    assert list(rows[0].r.asDict()) == [f["name"] for f in reader]  # the reader's fields, in the reader's order


def test_a_reader_field_without_default_missing_from_the_writer_fails_the_record(spark):
    writer, reader = record(field("id", "long")), record(field("id", "long"), field("currency", "string"))
    values = [framed(writer, {"id": 1})]
    with pytest.raises(Exception, match=r"MALFORMED_RECORD_IN_PARSING|Malformed records"):
        decode(spark, values, writer, reader).collect()
    # PERMISSIVE: not null, but a struct whose fields are all null (Spark 4.0's AvroDataToCatalyst)
    (row,) = decode(spark, values, writer, reader, mode="PERMISSIVE").collect()
    assert row.r is not None and row.r.asDict() == {"id": None, "currency": None}


def test_permissive_cannot_tell_a_corrupt_body_from_an_all_null_record_but_a_defaulted_field_can(spark):
    """A corrupt body decodes PERMISSIVE to a struct of nulls, like a record whose fields are all null. A reader
    field the writer lacks, non-null with a default (the sentinel), is true exactly when the record decoded."""
    writer = record(field("note", ["null", "string"], default=None))
    reader = record(*writer["fields"], field("__pipec_decoded", "boolean", default=True))
    values = [framed(writer, {"note": None}), b"\x00\x00\x00\x00\x01\x02\xff\xff"]
    rows = decode(spark, values, writer, reader, mode="PERMISSIVE").collect()
    assert [r.r.asDict() for r in rows] == [
        {"note": None, "__pipec_decoded": True},
        {"note": None, "__pipec_decoded": None},
    ]


@pytest.mark.registry
def test_one_from_avro_per_writer_schema_selected_by_the_schema_id(spark, schema_registry_url):
    """confluent-kafka's serializer writes two versions of a subject through the registry; a CASE on the 5-byte
    header picks the writer schema fetched by id, each branch resolves to the same reader schema; an id with no
    branch is flagged (a record error in a job). Native expressions only: no Python in the physical plan."""
    from pyspark.sql import Column
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    client = SchemaRegistryClient({"url": schema_registry_url})
    topic = "pipec-spark-from-avro"
    context = SerializationContext(topic, MessageField.VALUE)
    v1 = record(field("id", "int"), field("gone", "string"))
    v2 = record(field("id", "long"), field("currency", "string", default="EUR"))
    values = [
        AvroSerializer(client, json.dumps(v1))({"id": 1, "gone": "x"}, context),
        AvroSerializer(client, json.dumps(v2))({"id": 2, "currency": "USD"}, context),
        b"\x00" + struct.pack(">i", 999_999) + b"\x02",
    ]
    # what a job does when it starts: every version of the subject, by id
    writers = {}
    for version in client.get_versions(f"{topic}-value"):
        registered = client.get_version(f"{topic}-value", version)
        writers[registered.schema_id] = registered.schema.schema_str
    assert len(writers) == 2
    reader = json.dumps(
        record(
            field("id", ["null", "long"], default=None),
            field("currency", ["null", "string"], default=None),
            field("__pipec_decoded", "boolean", default=True),
        )
    )
    header = F.expr("substring(value, 1, 5)")
    decoded: Column | None = None
    for schema_id, writer in sorted(writers.items()):
        branch = from_avro(F.expr(BODY), writer, {"mode": "PERMISSIVE", "avroSchema": reader})
        when = header == F.unhex(F.lit(f"00{schema_id:08X}"))
        decoded = F.when(when, branch) if decoded is None else decoded.when(when, branch)
    schema_id = F.conv(F.hex(F.expr("substring(value, 2, 4)")), 16, 10).cast("bigint")
    df = spark.createDataFrame([(v,) for v in values], "value BINARY")
    out = df.select(schema_id.alias("schema_id"), decoded.alias("r"))
    rows = [(r.schema_id, r.r.asDict() if r.r is not None else None) for r in out.collect()]
    ids = sorted(writers)
    assert rows == [
        (ids[0], {"id": 1, "currency": None, "__pipec_decoded": True}),
        (ids[1], {"id": 2, "currency": "USD", "__pipec_decoded": True}),
        (999_999, None),  # no branch: the job raises a record error naming the id and the record's position
    ]
    plan = out._jdf.queryExecution().executedPlan().toString()
    assert "from_avro" in plan and "EvalPython" not in plan and "PythonUDF" not in plan
