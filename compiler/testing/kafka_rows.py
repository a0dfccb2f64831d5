"""Given test records -> raw rows shaped like Spark's Kafka source (SPEC section 9's defaults)."""

from __future__ import annotations

import base64
import csv
import datetime as dt
import io
import json
import os
from typing import Any

from ..connectors.cdc_json import FORMATS as CHANGELOG_FORMATS
from ..connectors.kafka import value_columns, wire_name
from ..envrefs import resolve
from ..model import Source, TestRecord
from .compare import headers_list

KAFKA_ROW_SCHEMA = (
    "key BINARY, value BINARY, topic STRING, partition INT, offset BIGINT, timestamp TIMESTAMP, "
    "timestampType INT, headers ARRAY<STRUCT<key: STRING, value: BINARY>>"
)
JSON_FORMATS = ("json", *CHANGELOG_FORMATS)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _json_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    return str(value)


def encode_payload(value: Any, fmt: str, columns: list[str]) -> bytes | None:
    """A key or value as its format writes it; `{base64: ...}` gives exact bytes for any format."""
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"base64"}:
        return base64.b64decode(value["base64"])
    if fmt in JSON_FORMATS:  # a changelog message too: the YAML mapping as its JSON
        return json.dumps(value, default=_json_default, ensure_ascii=False).encode("utf-8")
    if fmt == "csv" and isinstance(value, dict):
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow(["" if value.get(c) is None else value.get(c) for c in columns])
        return out.getvalue().encode("utf-8")
    if isinstance(value, dict) and len(value) == 1:  # raw: {column: text}
        (value,) = value.values()
    return str(value).encode("utf-8")


def _timestamp(value: Any) -> dt.datetime:
    if value is None:
        return EPOCH
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return EPOCH + dt.timedelta(milliseconds=value)
    parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)


def kafka_rows(source: Source, given: list[TestRecord]) -> list[tuple[int, tuple]]:
    """(batch, row) for each given record, with topic, partition, offset and timestamp defaults filled in."""
    default_topic = resolve(source.config.topics[0].raw, dict(os.environ)) if source.config.topics else None
    key_wire = [wire_name(source, k) for k in source.config.key_fields]
    value_names = [c.name for c in value_columns(source)]
    next_offset: dict[tuple, int] = {}
    rows = []
    for rec in given:
        f = rec.fields
        topic = f.get("topic", default_topic)
        partition = int(f.get("partition", 0))
        offset = f.get("offset")
        if offset is None:
            offset = next_offset.get((topic, partition), 0)
        next_offset[(topic, partition)] = int(offset) + 1
        headers = headers_list(f.get("headers"))
        row = (
            encode_payload(f.get("key"), source.config.key_format, key_wire),
            encode_payload(f.get("value"), source.config.format, value_names),
            topic,
            partition,
            int(offset),
            _timestamp(f.get("timestamp")),
            0,
            [(k, v) for k, v in headers] if headers else None,
        )
        rows.append((int(f.get("batch", 0)), row))
    return rows
