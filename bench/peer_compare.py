"""The records Kafka Connect's classes write (bench/ConnectPeer.java's `dump`) against the compiled job's sink rows,
record by record: the same records kept and dropped, and each kept one with the same topic, key, value and headers.

Kafka's side is schemaless (JsonConverter with `schemas.enable=false`), pipec's has a schema (SPEC section 6:
"Kafka Connect's *with-schema* semantics"), so Kafka's value is read in pipec's value type first:
- a field pipec's type has and Kafka's map lacks is null: a schemaless record carries only the fields its JSON had
  (Spark's `to_json` leaves a null field out of the input, so a null `card` or `address` is absent there);
- Kafka's schemaless Flatten keeps a null nested map as one null field (`customer_address: null`; reference
  section 3.5: "Null values are kept as null"), where pipec, like Kafka's with-schema Flatten, gives each of the
  struct's flattened fields a null (`customer_address_city`, `customer_address_zip`);
- a timestamp field is epoch milliseconds in Kafka's JSON (InsertField's schemaless `timestamp.field` puts the
  record's timestamp as a long) and an ISO-8601 UTC string in pipec's (SPEC section 7: `json` writes "timestamps
  as ISO-8601 UTC strings"): both are compared as epoch milliseconds;
- map order: Kafka's schemaless transforms build HashMaps (reference section 1.1), so fields compare by name.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

NULL_MAP = "a null nested map kept as one null field"
ABSENT = "a field absent from the schemaless record"


def _prefixes(name: str, delimiter: str) -> list[str]:
    """customer_address_city -> customer, customer_address (the nested maps it may have been flattened from)."""
    parts = name.split(delimiter)
    return [delimiter.join(parts[:i]) for i in range(1, len(parts))]


def schemaless_in_type(kafka: dict, fields: list[str], delimiter: str, seen: Counter) -> dict:
    """Kafka's schemaless value read in pipec's value type (`fields`, in order); a field Kafka wrote that the type
    lacks is kept under its own name, so that the comparison shows it."""
    out, used = {}, set()
    for name in fields:
        if name in kafka:
            out[name] = kafka[name]
            used.add(name)
            continue
        parent = next((p for p in _prefixes(name, delimiter) if p in kafka and kafka[p] is None), None)
        seen[NULL_MAP if parent else ABSENT] += 1
        used.add(parent)
        out[name] = None
    out.update({k: v for k, v in kafka.items() if k not in used})
    return out


def _millis(text: str | None) -> int | None:
    if text is None:
        return None
    return round(dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


def pipec_record(row, timestamp_fields: set[str]) -> dict:
    """A sink row of the compiled job (key, value, topic, headers) as plain values."""
    value = json.loads(row["value"]) if row["value"] is not None else None
    if value is not None:
        value.update({f: _millis(value[f]) for f in timestamp_fields if f in value})
    return {
        "topic": row["topic"],
        "key": json.loads(row["key"]) if row["key"] is not None else None,
        "value": value,
        "headers": [
            [h["key"], None if h["value"] is None else bytes(h["value"]).decode("utf-8")] for h in row["headers"]
        ],
    }


def kafka_record(line: dict, fields: list[str], delimiter: str, seen: Counter) -> dict:
    value = json.loads(line["value"]) if line["value"] is not None else None
    return {
        "topic": line["topic"],
        "key": json.loads(line["key"]) if line["key"] is not None else None,
        "value": None if value is None else schemaless_in_type(value, fields, delimiter, seen),
        "headers": line["headers"],
    }


def compare(kafka_lines: list[dict], pipec_rows: list, value_type, delimiter: str, key_field: str = "id"):
    """(problems, counts of how Kafka's values were read in pipec's type) over records matched by their key's
    `key_field`. `value_type`: the Spark type of pipec's value before the sink (its fields and timestamps)."""
    from pyspark.sql.types import TimestampType

    fields = [f.name for f in value_type.fields]
    timestamps = {f.name for f in value_type.fields if isinstance(f.dataType, TimestampType)}
    seen: Counter = Counter()
    pipec = {}
    for row in pipec_rows:
        record = pipec_record(row, timestamps)
        pipec[record["key"][key_field]] = record
    problems, kept = [], 0
    for line in kafka_lines:
        if "error" in line:
            problems.append(f"record {line['i']}: Kafka failed it: {line['error']}")
            continue
        if line.get("dropped"):
            seen["dropped"] += 1
            continue
        kept += 1
        kafka = kafka_record(line, fields, delimiter, seen)
        ours = pipec.pop(kafka["key"][key_field], None)
        if ours is None:
            problems.append(f"record {line['i']}: pipec wrote nothing for key {kafka['key']}")
        elif ours != kafka:
            diff = {part: (kafka[part], ours[part]) for part in kafka if kafka[part] != ours[part]}
            problems.append(f"record {line['i']}: differs (Kafka, pipec): {diff}")
    problems += [f"pipec wrote key {key} where Kafka dropped the record" for key in pipec]
    seen["kept"] = kept
    return problems, seen
