"""Kafka sink rows -> records, decoding key and value bytes by their formats and the compiler's types."""

from __future__ import annotations

import base64
import csv
import datetime as dt
import io
import json
import re
from decimal import Decimal
from typing import Any

from ..connectors import SINKS, avro
from ..connectors.kafka_sink import record_name, written_key, written_value_type
from ..connectors.payload import PRIMITIVE_FIELD, record_type
from ..resolve.builder import Compiled
from ..types.sql import FLOAT, ArrayType, MapType, SqlType, StructType
from .compare import Float32
from .frames import rows_frame


def typed(value: Any, t: SqlType | None) -> Any:
    """A decoded JSON/CSV value converted to the Python type Spark would give for `t`."""
    if value is None or t is None:
        return value
    if isinstance(t, StructType):
        return {f.name: typed(value.get(f.name), f.type) for f in t.fields}
    if isinstance(t, ArrayType):
        return [typed(v, t.element) for v in value]
    if isinstance(t, MapType):
        return {k: typed(v, t.value) for k, v in value.items()}
    if t.is_binary:
        return base64.b64decode(value)
    if t.is_timestamp:
        return instant(value)
    if t.sql() == "DATE":
        return dt.date.fromisoformat(str(value))
    if t == FLOAT:
        return Float32(float(value))
    if t.is_numeric:
        return Decimal(str(value)) if not t.is_integral else int(value)
    if t.sql() == "BOOLEAN" and isinstance(value, str):
        return value.lower() == "true"
    return value


_TIMESTAMP_TEXT = re.compile(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?(Z|[+-]\d\d:\d\d)?")


def instant(value: Any) -> dt.datetime:
    """A timestamp as a json sink writes it (any `timestamp-format`): epoch milliseconds, or ISO-8601 or SQL text
    with any number of fraction digits; an aware UTC datetime (a time without an offset is UTC)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(value / 1000, dt.timezone.utc)
    match = _TIMESTAMP_TEXT.fullmatch(str(value))
    if match is None:
        raise ValueError(f"not a timestamp a json sink writes: {value!r}")
    day, time, fraction, offset = match.groups()
    text = f"{day}T{time}.{(fraction or '').ljust(6, '0')}{'+00:00' if offset in (None, 'Z') else offset}"
    return dt.datetime.fromisoformat(text).astimezone(dt.timezone.utc)


def read_back(value: Any, t: SqlType | None) -> Any:
    """A value Spark collected as the sink wrote it: its FLOATs (Python floats) marked as float32s, its timestamps
    (epoch milliseconds or text under a json `timestamp-format`) as instants."""
    if value is None or t is None:
        return value
    if isinstance(t, StructType) and isinstance(value, dict):
        return {**value, **{f.name: read_back(value.get(f.name), f.type) for f in t.fields if f.name in value}}
    if isinstance(t, ArrayType):
        return [read_back(v, t.element) for v in value]
    if isinstance(t, MapType):
        return {k: read_back(v, t.value) for k, v in value.items()}
    if t.is_timestamp and not isinstance(value, dt.datetime):
        return instant(value)
    return Float32(value) if t == FLOAT else value


def decode_payload(data: bytes | None, fmt: str, t: SqlType | None) -> Any:
    if data is None:
        return None
    data = bytes(data)
    if fmt == "raw":
        try:
            return data.decode("utf-8") if t is None or not t.is_binary else data
        except UnicodeDecodeError:
            return data
    text = data.decode("utf-8")
    if fmt == "json":
        return typed(json.loads(text), t)
    if fmt == "debezium-json":  # {"before": row, "after": row, "op": "c" | "d"}
        message = json.loads(text)
        return {"before": typed(message["before"], t), "after": typed(message["after"], t), "op": message["op"]}
    row = next(csv.reader(io.StringIO(text)), [])  # the empty line: a record whose only field is null
    if isinstance(t, StructType):
        return typed({f.name: (v if v != "" else None) for f, v in zip(t.fields, row)}, t)
    return typed(row[0] if row else None, t)


def avro_decoder(spark, fmt: str, t: SqlType, name: str):
    """Decode Avro payloads with Spark's own from_avro (what a consumer with the schema would read); a primitive
    is the one-field record `value` it was written as."""
    from pyspark.sql import functions as F
    from pyspark.sql.avro.functions import from_avro

    record = record_type(t)

    def decode(payloads: list) -> list:
        df = rows_frame(spark, [(p,) for p in payloads], "p BINARY")
        body = F.expr("substring(p, 6)") if fmt == "avro-confluent" else F.col("p")
        out = df.select(from_avro(body, avro.record_schema(record, name)).alias("v")).collect()
        values = [None if r.v is None else _plain(r.v) for r in out]
        if not isinstance(t, StructType):
            values = [None if v is None else v[PRIMITIVE_FIELD] for v in values]
        return [read_back(v, t) for v in values]

    return decode


def _plain(value: Any) -> Any:
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict(recursive=False).items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def kafka_sink_records(compiled: Compiled, rows: list, spark=None, wire: bool = False) -> tuple[list[dict], set[str]]:
    """Records as the Kafka sink would write them (with `wire`, key and value as their bytes), and the fields known
    before the broker assigns the rest."""
    sink, shape = compiled.pipeline.sink, compiled.final
    fields = set(SINKS[sink.connector].test_layout(sink, shape).fields)
    if wire:
        return [
            {**row.asDict(recursive=False), "headers": [(h["key"], h["value"]) for h in row["headers"] or []]}
            for row in rows
        ], fields
    key = written_key(sink, shape)
    key_type = key[1] if key is not None else None
    value_type = written_value_type(sink, shape)
    decoded = {}
    for side, fmt, t, name in (
        ("key", sink.config.key_format, key_type, record_name(sink, shape, "key")),
        ("value", sink.config.format, value_type, record_name(sink, shape)),
    ):
        if fmt in avro.FORMATS and t is not None:
            decoded[side] = avro_decoder(spark, fmt, t, name)([r[side] for r in rows])
    records = []
    for i, row in enumerate(rows):
        data = row.asDict(recursive=False)
        rec = {
            "key": decoded["key"][i]
            if "key" in decoded
            else decode_payload(data["key"], sink.config.key_format or "json", key_type),
            "value": decoded["value"][i]
            if "value" in decoded
            else decode_payload(data["value"], sink.config.format, value_type),
            "topic": data["topic"],
            "headers": [(h["key"], h["value"]) for h in data["headers"] or []],
        }
        if "partition" in data:
            rec["partition"] = data["partition"]
        records.append(rec)
    return records, fields
