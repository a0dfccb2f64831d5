"""Compare expected records (YAML) with what a sink wrote, by SPEC section 9's conventions.

Pure Python: actual values arrive as plain data (dicts, lists, bytes, datetimes, Decimals, and `Float32` for a FLOAT
the sink wrote). BYTES are written as in `given`: a record's whole key or value (and a header value) as its UTF-8
text, or `{base64: ...}` for bytes that are not text; BYTES inside a structure as base64 strings, as JSON writes
them (`{base64: ...}` there too). A FLOAT compares at float32 precision, as the sink writes it.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import math
import struct
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

UTC = dt.timezone.utc
WHOLE = ("key", "value")  # record fields whose BYTES are written as text


def to_float32(value: float) -> float:
    """The float32 nearest `value` (as a float); beyond float32's range, infinity."""
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


class Float32(float):
    """A FLOAT a sink wrote: any number that rounds to the same float32 equals it, and it reads as the shortest
    text that rounds back to it (what Java's Float.toString, and so Spark's JSON and CSV writers, write)."""

    def __new__(cls, value: float) -> Float32:
        return super().__new__(cls, to_float32(float(value)))

    def __repr__(self) -> str:
        if not math.isfinite(self):
            return float.__repr__(self)
        for digits in range(1, 10):  # 9 significant digits always round-trip a float32
            text = repr(float(f"{self:.{digits}g}"))
            if to_float32(float(text)) == self:
                return text
        return float.__repr__(self)

    __str__ = __repr__


def _instant(value: Any) -> dt.datetime | None:
    """An expected timestamp (ISO-8601 string, YAML datetime, or epoch millis) as an aware UTC datetime."""
    if isinstance(value, bool):
        return None
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, (int, float)):
        return dt.datetime.fromtimestamp(value / 1000, UTC)
    if isinstance(value, str):
        try:
            parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal, str)):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _base64(text: Any) -> bytes | None:
    try:
        return base64.b64decode(str(text), validate=True)
    except (binascii.Error, ValueError):
        return None


def _is_base64(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"base64"}


def _expected_bytes(expected: Any, whole: bool) -> bytes | None:
    """Expected BYTES: `{base64: ...}` exactly; a string as UTF-8 text (a whole key or value) or base64 (inside a
    structure, as JSON writes BYTES)."""
    if _is_base64(expected):
        return _base64(expected["base64"])
    if isinstance(expected, str):
        return expected.encode("utf-8") if whole else _base64(expected)
    return None


def matches(expected: Any, actual: Any, whole: bool = False) -> bool:
    """Whether `actual` is what `expected` describes; the actual value's type decides how to read the YAML.
    `whole`: `actual` is a record's whole key or value (its BYTES read as text)."""
    if actual is None:
        return expected is None
    if expected is None:
        return False
    if isinstance(actual, dict):
        if not isinstance(expected, dict):
            return False
        for key in set(expected) | set(actual):
            if key not in actual:
                if expected[key] is not None:
                    return False
            elif key not in expected:
                if not _absent(actual[key]):
                    return False
            elif not matches(expected[key], actual[key]):
                return False
        return True
    if isinstance(actual, (list, tuple)):
        return isinstance(expected, list) and len(expected) == len(actual) and all(map(matches, expected, actual))
    if isinstance(actual, bool):
        return isinstance(expected, bool) and expected == actual
    if isinstance(actual, (int, float, Decimal)):
        if isinstance(actual, float) and actual != actual:
            return (isinstance(expected, float) and expected != expected) or expected in ("NaN", "nan")
        if isinstance(expected, str) or _number(expected) is None:
            return False
        if isinstance(actual, Float32):
            return to_float32(float(_number(expected))) == actual
        return _number(expected) == _number(actual)
    if isinstance(actual, (bytes, bytearray)):
        return _expected_bytes(expected, whole) == bytes(actual)
    if isinstance(actual, str) and _is_base64(expected):  # a STRING's UTF-8 bytes
        return _base64(expected["base64"]) == actual.encode("utf-8")
    if isinstance(actual, dt.datetime):
        when = _instant(expected)
        actual = actual if actual.tzinfo else actual.replace(tzinfo=UTC)
        return when is not None and when == actual
    if isinstance(actual, dt.date):
        return str(expected) == actual.isoformat()
    return expected == actual


def _absent(value: Any) -> bool:
    """A field left out of an expected mapping must be absent or null (nested: all null)."""
    return value is None


def _plain(value: Any, whole: bool = False) -> Any:
    """A value as the YAML of an expectation would write it (BYTES by SPEC section 9, numbers as numbers)."""
    if isinstance(value, dict):
        return {k: _plain(x) for k, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(x) for x in value]
    if isinstance(value, (bytes, bytearray)):
        data = bytes(value)
        if whole:
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                pass
        encoded = base64.b64encode(data).decode()
        return {"base64": encoded} if whole else encoded
    if isinstance(value, Float32):
        return float(repr(value))
    if isinstance(value, Decimal):  # a number, unless a float would change it
        return float(value) if Decimal(repr(float(value))) == value else str(value)
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat().replace("+00:00", "Z")
    if isinstance(value, dt.date):
        return str(value)
    return value


def show(value: Any, whole: bool = False) -> str:
    """One-line JSON-ish text of a value for failure reports."""
    return json.dumps(_plain(value, whole), ensure_ascii=False, sort_keys=False, default=str)


def _plain_headers(pairs: list[tuple[str, bytes | None]]) -> list[dict]:
    return [{"key": k, "value": _plain(v, whole=True)} for k, v in pairs]


def show_record(record: dict) -> str:
    """A record as an `expect` entry would write it: whole key and value, written headers as {key, value} items."""
    shown = {}
    for name, value in record.items():
        written_headers = name == "headers" and isinstance(value, list) and all(isinstance(h, tuple) for h in value)
        shown[name] = _plain_headers(value) if written_headers else _plain(value, whole=name in WHOLE)
    return json.dumps(shown, ensure_ascii=False, default=str)


# What a value is, for a failure report: the written types, and the YAML's kinds (subclasses first).
WRITTEN_KINDS = (
    (bool, "boolean"),
    (Float32, "float32"),
    (float, "double"),
    (int, "integer"),
    (Decimal, "decimal"),
    (str, "string"),
    ((bytes, bytearray), "bytes"),
    (dt.datetime, "timestamp"),
    (dt.date, "date"),
    (dict, "struct"),
    ((list, tuple), "array"),
    (type(None), "null"),
)
YAML_KINDS = (
    (bool, "boolean"),
    ((int, float), "number"),
    (str, "string"),
    (dt.datetime, "timestamp"),
    (dt.date, "date"),
    (dict, "mapping"),
    (list, "list"),
    (type(None), "null"),
)


def kind(value: Any, written: bool) -> str:
    if not written and _is_base64(value):
        return "base64"
    kinds = WRITTEN_KINDS if written else YAML_KINDS
    return next((name for types, name in kinds if isinstance(value, types)), type(value).__name__)


def differences(expected: Any, actual: Any, path: str, whole: bool = False) -> list[str]:
    """Where `actual` is not what `expected` describes: one line per differing leaf, with both kinds."""
    if isinstance(expected, dict) and isinstance(actual, dict) and not _is_base64(expected):
        keys = list(expected) + [k for k in actual if k not in expected]
        return [line for k in keys for line in differences(expected.get(k), actual.get(k), f"{path}.{k}")]
    if isinstance(expected, list) and isinstance(actual, (list, tuple)) and len(expected) == len(actual):
        return [line for i, (e, a) in enumerate(zip(expected, actual)) for line in differences(e, a, f"{path}[{i}]")]
    if matches(expected, actual, whole):
        return []
    return [
        f"{path}: expected {show(expected)} ({kind(expected, False)}), "
        f"written {show(actual, whole)} ({kind(actual, True)})"
    ]


def headers_list(value: Any) -> list[tuple[str, bytes | None]] | None:
    """Expected headers (a mapping in wire order, or a list of {key, value}) as (key, bytes) pairs."""
    if value is None:
        return None
    items = value.items() if isinstance(value, dict) else [(h.get("key"), h.get("value")) for h in value]
    out = []
    for key, v in items:
        if v is None:
            out.append((str(key), None))
        elif isinstance(v, dict) and "base64" in v:
            out.append((str(key), base64.b64decode(v["base64"])))
        else:
            text = str(v).lower() if isinstance(v, bool) else str(v)
            out.append((str(key), text.encode("utf-8")))
    return out


def _headers_written(record: dict) -> list[tuple[str, bytes | None]]:
    return [(k, bytes(v) if v is not None else None) for k, v in record.get("headers") or []]


def field_matches(name: str, want: Any, record: dict) -> bool:
    if name == "headers":
        return headers_list(want) == _headers_written(record)
    return matches(want, record.get(name), whole=name in WHOLE)


def record_matches(expected: dict, actual: dict) -> bool:
    """Only the record fields `expected` names are compared."""
    return all(field_matches(name, want, actual) for name, want in expected.items())


def record_differences(expected: dict, actual: dict) -> list[str]:
    out = []
    for name, want in expected.items():
        if name == "headers":
            if not field_matches(name, want, actual):
                want_text, got_text = (
                    json.dumps(None if h is None else _plain_headers(h), ensure_ascii=False)
                    for h in (headers_list(want), _headers_written(actual))
                )
                out.append(f"headers: expected {want_text}, written {got_text}")
        else:
            out += differences(want, actual.get(name), name, whole=name in WHOLE)
    return out


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Why a case failed: expected records not found, and actual records no expectation took."""

    missing: list[tuple[int, dict]]
    unexpected: list[dict]
    order: list[str]

    def lines(self) -> list[str]:
        out = []
        for line, rec in self.missing:
            out.append(f"  expected (line {line}), not written: {show_record(rec)}")
            closest = min(self.unexpected, key=lambda got: len(record_differences(rec, got)), default=None)
            if closest is not None:
                out += [f"    the closest written record differs at {d}" for d in record_differences(rec, closest)]
        for rec in self.unexpected:
            out.append(f"  written, not expected:         {show_record(rec)}")
        out += [f"  order: {o}" for o in self.order]
        return out


def compare(expected: list[tuple[int, dict]], actual: list[dict], ordered: bool = True) -> Mismatch | None:
    """Multiset match; with `ordered`, records of one topic and key must keep the expected order
    (a sink that writes neither topic nor key gives no such groups, so it is compared as a multiset)."""
    used: dict[int, int] = {}
    missing = []
    for pos, (line, want) in enumerate(expected):
        hit = next((i for i, got in enumerate(actual) if i not in used.values() and record_matches(want, got)), None)
        if hit is None:
            missing.append((line, want))
        else:
            used[pos] = hit
    order = []
    last: dict[str, tuple[int, int]] = {}
    for pos in sorted(used) if ordered else ():
        got = actual[used[pos]]
        group = show([got.get("topic"), got.get("key")])
        if group in last and last[group][1] > used[pos]:
            order.append(
                f"record at line {expected[pos][0]} was written before the one at line {last[group][0]} (same topic and key)"
            )
        last[group] = (expected[pos][0], used[pos])
    unexpected = [got for i, got in enumerate(actual) if i not in used.values()]
    if missing or unexpected or order:
        return Mismatch(missing, unexpected, order)
    return None
