"""pipec column types <-> Kafka Connect JSON schemas, and values in the three forms the differential tests need.

A *plain* value is what both sides are compared as: int, float (FLOAT rounded to float32), bool, str, bytes,
Decimal, date, aware UTC datetime, list, dict (a MAP) and Row (a STRUCT: a dict whose field order counts).
`payload` writes a plain value as a Connect JsonConverter payload, `pipec_json` as pipec's `json` format reads it;
`from_envelope` reads Kafka's output back through its schema, `from_spark` reads pipec's sink rows through the
compiled shape's type.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import struct
from decimal import Context, Decimal
from typing import Any

from pipec.types.sql import ArrayType, MapType, Primitive, SqlType, StructType

UTC = dt.timezone.utc
EXACT = Context(prec=100)  # DECIMAL(38, s) arithmetic without rounding (the default context keeps 28 digits)
EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
EPOCH_DAY = dt.date(1970, 1, 1)
LOGICAL = "org.apache.kafka.connect.data."
DECIMAL, DATE, TIME, TIMESTAMP = (LOGICAL + n for n in ("Decimal", "Date", "Time", "Timestamp"))

PRIMITIVES = {  # pipec primitive -> Connect schema type
    "BOOLEAN": "boolean",
    "TINYINT": "int8",
    "SMALLINT": "int16",
    "INT": "int32",
    "BIGINT": "int64",
    "FLOAT": "float",
    "DOUBLE": "double",
    "STRING": "string",
    "BYTES": "bytes",
}
LOGICAL_TYPES = {  # pipec primitive -> (Connect type, logical name)
    "DATE": ("int32", DATE),
    "TIMESTAMP": ("int64", TIMESTAMP),
    "TIMESTAMP_LTZ": ("int64", TIMESTAMP),
    "DECIMAL": ("bytes", DECIMAL),
}


class Row(dict):
    """A STRUCT value: equal only to another Row with the same fields in the same order."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Row) and list(self.items()) == list(other.items())

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # type: ignore[assignment]


NAN = float("nan")  # the one NaN both sides decode to, so that equal containers compare equal


def f32(x: float) -> float:
    return _nan(struct.unpack("<f", struct.pack("<f", x))[0])


def _nan(x: float) -> float:
    return NAN if x != x else x


# ------------------------------------------------------------------ schemas


def connect_schema(t: SqlType) -> dict:
    """The Connect JSON schema of a column type; every level optional (pipec columns are nullable)."""
    if isinstance(t, StructType):
        fields = [{"field": f.name, **connect_schema(f.type)} for f in t.fields]
        return {"type": "struct", "fields": fields, "optional": True}
    if isinstance(t, ArrayType):
        return {"type": "array", "items": connect_schema(t.element), "optional": True}
    if isinstance(t, MapType):
        return {"type": "map", "keys": connect_schema(t.key), "values": connect_schema(t.value), "optional": True}
    assert isinstance(t, Primitive), t
    if t.name in PRIMITIVES:
        return {"type": PRIMITIVES[t.name], "optional": True}
    kind, name = LOGICAL_TYPES[t.name]
    schema = {"type": kind, "optional": True, "name": name, "version": 1}
    if t.name == "DECIMAL":
        schema["parameters"] = {"scale": str(t.scale), "connect.decimal.precision": str(t.precision)}
    return schema


def skeleton_of_schema(schema: dict | None) -> Any:
    """A Connect schema reduced to what pipec can express (no optionality, names only for logical types).
    A Connect Time is a timestamp on 1970-01-01 in pipec (SPEC section 6)."""
    if schema is None:
        return None
    kind, name = schema["type"], schema.get("name")
    if name == DECIMAL:
        return ("decimal", int(schema["parameters"]["scale"]))
    if name in (DATE,):
        return "date"
    if name in (TIME, TIMESTAMP):
        return "timestamp"
    if kind == "struct":
        return ("struct", tuple((f["field"], skeleton_of_schema(f)) for f in schema["fields"]))
    if kind == "array":
        return ("array", skeleton_of_schema(schema["items"]))
    if kind == "map":
        return ("map", skeleton_of_schema(schema["keys"]), skeleton_of_schema(schema["values"]))
    return kind


def skeleton_of_type(t: SqlType | None) -> Any:
    """The same reduction for a pipec type."""
    return skeleton_of_schema(connect_schema(t)) if t is not None else None


# ------------------------------------------------------------------ plain -> wire forms


def _unscaled(value: Decimal, scale: int) -> bytes:
    n = int(value.scaleb(scale, context=EXACT))
    return n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True)


def payload(t: SqlType, v: Any) -> Any:
    """A plain value as a JsonConverter payload of `connect_schema(t)`."""
    if v is None:
        return None
    if isinstance(t, StructType):
        return {f.name: payload(f.type, v.get(f.name)) for f in t.fields}
    if isinstance(t, ArrayType):
        return [payload(t.element, x) for x in v]
    if isinstance(t, MapType):
        return {k: payload(t.value, x) for k, x in v.items()}
    name = t.name
    if name == "BYTES":
        return base64.b64encode(v).decode()
    if name == "DECIMAL":
        return base64.b64encode(_unscaled(v, t.scale)).decode()
    if name == "DATE":
        return (v - EPOCH_DAY).days
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return epoch_millis(v)
    return v


def epoch_millis(v: dt.datetime) -> int:
    delta = (v if v.tzinfo else v.replace(tzinfo=UTC)) - EPOCH
    return (delta.days * 86_400_000) + (delta.seconds * 1000) + delta.microseconds // 1000


def iso_millis(v: dt.datetime, zone: bool = True) -> str:
    text = v.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")
    return text + "Z" if zone else text


def pipec_json(t: SqlType, v: Any) -> Any:
    """A plain value as pipec's json format reads it (SPEC section 9: base64 BYTES, ISO dates and timestamps)."""
    if v is None:
        return None
    if isinstance(t, StructType):
        return {f.name: pipec_json(f.type, v.get(f.name)) for f in t.fields}
    if isinstance(t, ArrayType):
        return [pipec_json(t.element, x) for x in v]
    if isinstance(t, MapType):
        return {k: pipec_json(t.value, x) for k, x in v.items()}
    name = t.name
    if name == "BYTES":
        return base64.b64encode(v).decode()
    if name == "DECIMAL":
        return str(v)
    if name == "DATE":
        return v.isoformat()
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return iso_millis(v, zone=name == "TIMESTAMP_LTZ")
    return v


def from_pipec_json(t: SqlType | None, v: Any) -> Any:
    """The inverse of `pipec_json`: a value as pipec's json format reads it (ISO or epoch-millisecond timestamps) as
    a plain value."""
    if v is None or t is None:
        return v
    if isinstance(t, StructType):
        return {f.name: from_pipec_json(f.type, v.get(f.name)) for f in t.fields}
    if isinstance(t, ArrayType):
        return [from_pipec_json(t.element, x) for x in v]
    if isinstance(t, MapType):
        return {k: from_pipec_json(t.value, x) for k, x in v.items()}
    name = t.name
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        if isinstance(v, (int, float)):
            return EPOCH + dt.timedelta(milliseconds=v)
        parsed = dt.datetime.fromisoformat(str(v).replace("Z", "+00:00"))
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    if name == "DATE":
        return dt.date.fromisoformat(str(v))
    if name == "BYTES":
        return base64.b64decode(v)
    if name == "DECIMAL":
        return Decimal(str(v))
    return v


def envelope(t: SqlType | None, v: Any) -> dict | None:
    """A key or value as a JsonConverter envelope; a null value keeps its schema (a with-schema null)."""
    if t is None:
        return None
    return {"schema": connect_schema(t), "payload": payload(t, v)}


# ------------------------------------------------------------------ wire forms -> plain


def from_envelope(env: Any) -> Any:
    """Kafka's output (a JsonConverter envelope, or null) as a plain value."""
    if env is None:
        return None
    return from_payload(env.get("schema"), env.get("payload"))


def from_payload(schema: dict | None, v: Any) -> Any:
    if v is None:
        return None
    if schema is None:  # schemaless: JSON as it is
        return v
    kind, name = schema["type"], schema.get("name")
    if name == DECIMAL:
        scale = int(schema["parameters"]["scale"])
        if isinstance(v, str):
            return Decimal(int.from_bytes(base64.b64decode(v), "big", signed=True)).scaleb(-scale, context=EXACT)
        return Decimal(str(v))
    if name == DATE:
        return EPOCH_DAY + dt.timedelta(days=v)
    if name in (TIME, TIMESTAMP):
        return EPOCH + dt.timedelta(milliseconds=v)
    if kind == "struct":
        return Row((f["field"], from_payload(f, v.get(f["field"]))) for f in schema["fields"])
    if kind == "array":
        return [from_payload(schema["items"], x) for x in v]
    if kind == "map":
        if isinstance(v, dict):
            return {from_payload(schema["keys"], k): from_payload(schema["values"], x) for k, x in v.items()}
        return {from_payload(schema["keys"], k): from_payload(schema["values"], x) for k, x in v}
    if kind == "bytes":
        return base64.b64decode(v)
    if kind == "float":  # Jackson writes NaN and the infinities as strings
        return f32(float(v))
    if kind == "double":
        return _nan(float(v))
    return v


def from_spark(t: SqlType | None, v: Any) -> Any:
    """A value from pipec's sink rows (plain dicts from Spark Rows) as a plain value of type `t`."""
    if v is None:
        return None
    if isinstance(t, StructType):
        return Row((f.name, from_spark(f.type, v.get(f.name))) for f in t.fields)
    if isinstance(t, ArrayType):
        return [from_spark(t.element, x) for x in v]
    if isinstance(t, MapType):
        return {from_spark(t.key, k): from_spark(t.value, x) for k, x in v.items()}
    if isinstance(v, dt.datetime):
        return v.astimezone(UTC) if v.tzinfo else v.replace(tzinfo=UTC)
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    if isinstance(t, Primitive) and t.name == "FLOAT":
        return f32(v)
    if isinstance(t, Primitive) and t.name == "DOUBLE":
        return _nan(float(v))
    return v


def header_text(v: bytes | None) -> Any:
    """A header value as the UTF-8 text Kafka's SimpleHeaderConverter writes (non-UTF-8 bytes as base64)."""
    if v is None:
        return None
    try:
        return bytes(v).decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(bytes(v)).decode()}


def show(value: Any) -> str:
    """One line of JSON-ish text for a plain value (mismatch reports)."""

    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, bytes):
            return {"base64": base64.b64encode(v).decode()}
        if isinstance(v, dt.datetime):
            return v.isoformat().replace("+00:00", "Z")
        if isinstance(v, (dt.date, Decimal)):
            return str(v)
        return v

    return json.dumps(plain(value), ensure_ascii=False)
