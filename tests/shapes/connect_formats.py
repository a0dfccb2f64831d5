"""The bytes each payload format writes for a value of a given type, written here from the formats' documentation,
independently of pipec (the cross-product test's oracle).

- json: Kafka Connect's JsonConverter with schemas.enable=false: a struct is an object of its fields in schema
  order, null fields included; a primitive is the bare JSON scalar; BYTES are base64; FLOAT/DOUBLE are Java's
  Float/Double.toString; SPEC section 7's logical types: DECIMAL a number with its scale, DATE `yyyy-MM-dd`,
  timestamps ISO-8601 (`Z` for TIMESTAMP_LTZ, UTC; no zone for TIMESTAMP), milliseconds.
- csv: Flink's csv format (RFC 4180): fields joined by `,`, a field quoted when it holds `,`, `"` or a line break,
  `"` doubled inside quotes, null as nothing and an empty string as `""` (so that it reads back as empty, not
  null), BYTES base64; no line break at the end of a Kafka payload.
- avro: Avro's binary encoding of a record whose fields are nullable unions `["null", T]` (Avro specification:
  zig-zag varints, little-endian IEEE floats, length-prefixed bytes and strings, blocks for arrays and maps,
  decimal as big-endian two's complement bytes, date as days, timestamps as microseconds); avro-confluent adds
  Confluent's wire header (magic byte 0, big-endian 4-byte schema id).
- raw: a STRING's UTF-8, BYTES as they are.
A primitive is written by csv and avro as the one-field record `value` (SPEC section 7).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import struct
from decimal import Decimal
from typing import Any

from pipec.types.sql import ArrayType, MapType, Primitive, SqlType, StructField, StructType

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def record_of(t: SqlType, value: Any) -> tuple[StructType, Any]:
    """A struct as it is; a primitive as the one-field record `value`."""
    if isinstance(t, StructType):
        return t, value
    return StructType((StructField("value", t),)), {"value": value}


# ---------------------------------------------------------------- numbers as Java prints them


def java_float(x: float) -> str:
    """Float.toString: the shortest decimal that reads back as the same float32, with a `.0` for whole numbers."""
    single = struct.unpack("<f", struct.pack("<f", x))[0]
    for digits in range(1, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
            break
    return text if "." in text or "e" in text else f"{text}.0"


def java_double(x: float) -> str:
    text = repr(float(x))
    return text if "." in text or "e" in text else f"{text}.0"


def _millis(value: dt.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}"


def scalar_text(value: Any, t: Primitive) -> str:
    """A primitive as text (a JSON number's digits, or a JSON string's contents)."""
    name = t.name
    if name == "BOOLEAN":
        return "true" if value else "false"
    if name == "FLOAT":
        return java_float(value)
    if name == "DOUBLE":
        return java_double(value)
    if name == "DECIMAL":
        return format(Decimal(value).quantize(Decimal(1).scaleb(-t.scale)), "f")
    if name == "BYTES":
        return base64.b64encode(value).decode()
    if name == "DATE":
        return value.isoformat()
    if name == "TIMESTAMP":
        return _millis(value)
    if name == "TIMESTAMP_LTZ":
        return _millis(value.astimezone(dt.timezone.utc)) + "Z"
    return str(value)


QUOTED = {"STRING", "BYTES", "DATE", "TIMESTAMP", "TIMESTAMP_LTZ"}  # JSON strings; the rest are literals


# ---------------------------------------------------------------- json


def json_text(value: Any, t: SqlType) -> str:
    if value is None:
        return "null"
    if isinstance(t, StructType):
        return "{" + ",".join(f"{json.dumps(f.name)}:{json_text(value[f.name], f.type)}" for f in t.fields) + "}"
    if isinstance(t, ArrayType):
        return "[" + ",".join(json_text(v, t.element) for v in value) + "]"
    if isinstance(t, MapType):
        assert t.key.is_string, "JsonConverter writes other maps as arrays of pairs; not part of these cases"
        return (
            "{"
            + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{json_text(v, t.value)}" for k, v in value.items())
            + "}"
        )
    text = scalar_text(value, t)
    return json.dumps(text, ensure_ascii=False) if t.name in QUOTED else text


def json_bytes(value: Any, t: SqlType) -> bytes | None:
    """A Kafka payload: None (a null key, or a tombstone) for a null value."""
    return None if value is None else json_text(value, t).encode("utf-8")


# ---------------------------------------------------------------- csv


def _csv_field(value: Any, t: SqlType) -> str:
    if value is None:
        return ""
    text = scalar_text(value, t)
    if text == "" or any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_line(value: Any, t: SqlType) -> str:
    record_type, record = record_of(t, value)
    return ",".join(_csv_field(record[f.name], f.type) for f in record_type.fields)


def csv_bytes(value: Any, t: SqlType) -> bytes | None:
    return None if value is None else csv_line(value, t).encode("utf-8")


# ---------------------------------------------------------------- raw


def raw_bytes(value: Any, t: SqlType) -> bytes | None:
    if isinstance(t, StructType):  # a one-field record written bare
        (field,) = t.fields
        value, t = (None if value is None else value[field.name]), field.type
    if value is None:
        return None
    return bytes(value) if t.is_binary else value.encode("utf-8")


# ---------------------------------------------------------------- avro


def _long(n: int) -> bytes:
    zigzag = (n << 1) ^ (n >> 63)
    out = bytearray()
    while True:
        byte = zigzag & 0x7F
        zigzag >>= 7
        if zigzag:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _sized(data: bytes) -> bytes:
    return _long(len(data)) + data


def _avro_body(value: Any, t: SqlType) -> bytes:
    if isinstance(t, StructType):
        return b"".join(_avro_nullable(value[f.name], f.type) for f in t.fields)
    if isinstance(t, ArrayType):
        items = b"".join(_avro_nullable(v, t.element) for v in value)
        return (_long(len(value)) + items if value else b"") + _long(0)
    if isinstance(t, MapType):
        entries = b"".join(_sized(k.encode("utf-8")) + _avro_nullable(v, t.value) for k, v in value.items())
        return (_long(len(value)) + entries if value else b"") + _long(0)
    name = t.name
    if name == "BOOLEAN":
        return b"\x01" if value else b"\x00"
    if name in ("TINYINT", "SMALLINT", "INT", "BIGINT"):
        return _long(value)
    if name == "FLOAT":
        return struct.pack("<f", value)
    if name == "DOUBLE":
        return struct.pack("<d", value)
    if name == "STRING":
        return _sized(value.encode("utf-8"))
    if name == "BYTES":
        return _sized(bytes(value))
    if name == "DECIMAL":
        unscaled = int(Decimal(value).scaleb(t.scale))
        size = max(1, (unscaled.bit_length() + 8) // 8)
        return _sized(unscaled.to_bytes(size, "big", signed=True))
    if name == "DATE":
        return _long((value - dt.date(1970, 1, 1)).days)
    if name == "TIMESTAMP_LTZ":
        delta = value - EPOCH
    else:  # TIMESTAMP: local-timestamp-micros
        delta = value - EPOCH.replace(tzinfo=None)
    return _long(delta // dt.timedelta(microseconds=1))


def _avro_nullable(value: Any, t: SqlType) -> bytes:
    return _long(0) if value is None else _long(1) + _avro_body(value, t)


def avro_bytes(value: Any, t: SqlType, schema_id: int | None = None) -> bytes | None:
    """The record (a primitive as the record `value`), not nullable at the top: a null value is a tombstone."""
    if value is None:
        return None
    record_type, record = record_of(t, value)
    body = _avro_body(record, record_type)
    return body if schema_id is None else b"\x00" + schema_id.to_bytes(4, "big") + body


SCHEMA_ID = 7  # the schema-id the cross-product's avro-confluent sinks write
PAYLOADS = {
    "json": json_bytes,
    "csv": csv_bytes,
    "raw": raw_bytes,
    "avro": avro_bytes,
    "avro-confluent": lambda value, t: avro_bytes(value, t, SCHEMA_ID),
}
