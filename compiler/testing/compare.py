"""Compare expected records (YAML) with what a sink wrote, by SPEC section 9's conventions.

Pure Python: actual values arrive as plain data (dicts, lists, bytes, datetimes, Decimals).
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

UTC = dt.timezone.utc


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


def _bytes_text(value: Any) -> bytes | None:
    """Expected BYTES: a base64 string or {base64: ...}."""
    if isinstance(value, dict) and set(value) == {"base64"}:
        value = value["base64"]
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except ValueError:
            return None
    return None


def matches(expected: Any, actual: Any) -> bool:
    """Whether `actual` is what `expected` describes; the actual value's type decides how to read the YAML."""
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
            return isinstance(expected, float) and expected != expected or expected in ("NaN", "nan")
        return _number(expected) == _number(actual) if not isinstance(expected, str) else False
    if isinstance(actual, (bytes, bytearray)):
        return _bytes_text(expected) == bytes(actual)
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


def show(value: Any) -> str:
    """One-line JSON-ish text of a value for failure reports."""

    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        if isinstance(v, (bytes, bytearray)):
            try:
                return bytes(v).decode("utf-8") if bytes(v).isascii() else {"base64": base64.b64encode(v).decode()}
            except UnicodeDecodeError:
                return {"base64": base64.b64encode(v).decode()}
        if isinstance(v, dt.datetime):
            return (v if v.tzinfo else v.replace(tzinfo=UTC)).isoformat().replace("+00:00", "Z")
        if isinstance(v, (dt.date, Decimal)):
            return str(v)
        return v

    return json.dumps(plain(value), ensure_ascii=False, sort_keys=False, default=str)


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


@dataclass(frozen=True)
class Mismatch:
    """Why a case failed: expected records not found, and actual records no expectation took."""

    missing: list[tuple[int, dict]]
    unexpected: list[dict]
    order: list[str]

    def lines(self) -> list[str]:
        out = []
        for line, rec in self.missing:
            out.append(f"  expected (line {line}), not written: {show(rec)}")
        for rec in self.unexpected:
            out.append(f"  written, not expected:         {show(rec)}")
        out += [f"  order: {o}" for o in self.order]
        return out


def record_matches(expected: dict, actual: dict) -> bool:
    """Only the record fields `expected` names are compared."""
    for name, want in expected.items():
        if name == "headers":
            got = actual.get("headers") or []
            if headers_list(want) != [(k, bytes(v) if v is not None else None) for k, v in got]:
                return False
        elif not matches(want, actual.get(name)):
            return False
    return True


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
            order.append(f"record at line {expected[pos][0]} was written before the one at line {last[group][0]} (same topic and key)")
        last[group] = (expected[pos][0], used[pos])
    unexpected = [got for i, got in enumerate(actual) if i not in used.values()]
    if missing or unexpected or order:
        return Mismatch(missing, unexpected, order)
    return None
