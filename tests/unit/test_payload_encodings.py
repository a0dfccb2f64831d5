"""Golden tests of the payload lowering (compiler/connectors/payload.py) and of the sink format tables: no Spark.

The Spark behaviour of the same expressions is checked by tests/shapes/test_cross_product.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pipec import ir
from pipec.connectors import SINKS
from pipec.connectors.payload import encode_payload, payload_problem
from pipec.emit import render
from pipec.types.parser import parse_type
from pipec.types.sql import StructType

ROOT = Path(__file__).resolve().parents[2]
VALUE = ir.Col("value")
NULL_BYTES = "F.lit(None).cast('BINARY')"


def code(fmt: str, type_text: str) -> str:
    t = parse_type(type_text) if type_text != "STRUCT<>" else StructType(())
    return render.expr(encode_payload(VALUE, t, fmt, "rec", 7))


def test_a_primitive_as_json_is_the_scalar_between_the_brackets_of_a_one_element_array():
    # regexp_extract's group index is a Python int: a Column there is PySpark's NOT_ITERABLE (issue 11 defect 1)
    assert code("json", "BIGINT") == (
        f"F.when(F.col('value').isNull(), {NULL_BYTES}).otherwise(F.regexp_extract(F.to_json(F.array(F.col('value')), "
        "{'ignoreNullFields': 'false'}), '^\\\\[(.*)\\\\]$', 1).cast('BINARY'))"
    )


def test_a_struct_as_json_is_to_json_and_an_empty_struct_too():
    assert code("json", "STRUCT<a INT>") == "F.to_json(F.col('value'), {'ignoreNullFields': 'false'}).cast('BINARY')"
    assert code("json", "STRUCT<>") == code("json", "STRUCT<a INT>")


def test_csv_writes_a_primitive_as_the_record_value_with_bytes_in_base64_and_rfc4180_quotes():
    assert code("csv", "BYTES") == (
        f"F.when(F.col('value').isNull(), {NULL_BYTES}).otherwise(F.to_csv(F.struct(F.base64(F.col('value'))"
        ".alias('value')), {'escape': '\"'}).cast('BINARY'))"
    )


def test_csv_writes_a_record_whose_only_field_is_null_as_the_empty_line():
    assert code("csv", "STRUCT<s STRING>") == (
        f"F.when(F.col('value').isNull(), {NULL_BYTES}).otherwise(F.when(F.col('value').getField('s').isNull(), "
        "F.lit('')).otherwise(F.to_csv(F.col('value'), {'escape': '\"'})).cast('BINARY'))"
    )


def test_raw_writes_a_string_or_a_one_field_record_bare():
    assert code("raw", "STRING") == "F.col('value').cast('BINARY')"
    assert code("raw", "BYTES") == "F.col('value')"
    assert code("raw", "STRUCT<s STRING>") == "F.col('value').getField('s').cast('BINARY')"


def test_avro_writes_a_primitive_as_the_one_field_record_value():
    schema = '{"type":"record","name":"rec","fields":[{"name":"value","type":["null","long"],"default":null}]}'
    record = "F.when(F.col('value').isNotNull(), F.struct(F.col('value').alias('value')))"
    assert code("avro", "BIGINT") == f"A.to_avro({record}, {schema!r})"
    assert code("avro-confluent", "BIGINT") == (
        f"F.when({record}.isNull(), {NULL_BYTES}).otherwise(F.concat(F.unhex(F.lit('0000000007')), "
        f"A.to_avro({record}, {schema!r})))"
    )


@pytest.mark.parametrize(
    "fmt, type_text, refused",
    [
        ("json", "MAP<INT, STRING>", False),
        ("raw", "INT", True),
        ("raw", "DATE", True),
        ("raw", "STRUCT<a STRING, b STRING>", True),
        ("raw", "STRUCT<a INT>", True),
        ("raw", "STRUCT<a BYTES>", False),
        ("raw", "STRING", False),
        ("csv", "ARRAY<INT>", True),
        ("csv", "MAP<STRING, INT>", True),
        ("csv", "STRUCT<>", True),
        ("csv", "STRUCT<a STRUCT<b INT>>", True),
        ("csv", "STRUCT<a INT, b BYTES>", False),
        ("csv", "TIMESTAMP", False),
        ("avro", "MAP<INT, STRING>", True),
        ("avro-confluent", "STRUCT<m MAP<INT, STRING>>", True),
        ("avro", "STRUCT<>", False),
        ("avro", "MAP<STRING, INT>", False),
    ],
)
def test_what_each_format_refuses(fmt, type_text, refused):
    t = parse_type(type_text) if type_text != "STRUCT<>" else StructType(())
    assert (payload_problem(fmt, t) is not None) == refused


def test_the_schema_offers_exactly_the_formats_the_sink_connectors_implement():
    defs = json.loads((ROOT / "schemas" / "pipeline.schema.json").read_text(encoding="utf-8"))["$defs"]
    for name, schema_def in (("kafka", "KafkaSink"), ("upsert-kafka", "UpsertKafkaSink"), ("files", "FilesSink")):
        props = defs[schema_def]["properties"]
        values = props["format"]["enum"] if "format" in props else props["value"]["properties"]["format"]["enum"]
        keys = props["key"]["properties"]["format"]["enum"] if "key" in props else []
        assert (tuple(values), tuple(keys)) == (SINKS[name].formats, SINKS[name].key_formats), name
