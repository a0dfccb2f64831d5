"""Kafka Connect's `Values`, at compile time: read a literal as `Values.parseString` types it and write
it back as `SimpleHeaderConverter` does (`Values.convertToString`, UTF-8), for InsertHeader's constant.

A value is None (Java null) or a tagged pair `(java class, payload)`: ("Byte"|"Short"|"Integer"|"Long", int),
("Float"|"Double", float), ("BigDecimal", (unscaled, scale)), ("Boolean", bool), ("String", str),
("Date", epoch millis), ("List", tuple), ("Map", tuple of (key, value)). A schema is (type, logical name).
The worker's JVM time zone is taken to be UTC.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import TYPE_CHECKING

from .connect_schemas import DataError, SchemaMerger, convert_to, map_key
from .javatext import DAY, big_decimal_text, date_text, days_from_civil, f32_of, java_float_text

if TYPE_CHECKING:  # fractions only where a number needs exact arithmetic (its import costs a cold start)
    from fractions import Fraction

__all__ = [
    "Unsupported",
    "big_decimal_text",
    "connect_text",
    "java_float_text",
    "literal_header_bytes",
    "parse_literal",
]
_TRIM = "".join(chr(c) for c in range(33))  # Java's String.trim() strips every char <= U+0020
_DELIMITERS = frozenset(':,{}[]"')


class Unsupported(Exception):
    """A literal whose Kafka reading pipec cannot reproduce exactly (the message says why)."""


def _trim(text: str) -> str:
    return text.strip(_TRIM)


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _digit(ch: str) -> int | None:
    """Java's Character.digit(ch, 10) for a BMP char (what BigDecimal and DecimalFormat accept)."""
    return unicodedata.decimal(ch, None) if ord(ch) < 0x10000 else None


_DATE = (("y", 1970), "-", ("M", 1), "-", ("d", 1))
_TIME = (("H", 0), ":", ("m", 0), ":", ("s", 0), ".", ("S", 0), "Z")
_TEMPORAL = {10: ("Date", _DATE), 13: ("Time", _TIME), 24: ("Timestamp", _DATE + ("T",) + _TIME)}


def _sdf_parse(text: str, pattern: tuple) -> int | None:
    """Lenient SimpleDateFormat.parse(text, pos) in UTC for Connect's three ISO patterns: epoch millis,
    or None when it fails (trailing text is ignored, as Kafka only checks that something was read)."""
    fields = {"y": 1970, "M": 1, "d": 1, "H": 0, "m": 0, "s": 0, "S": 0}
    pos, odd = 0, []
    for element in pattern:
        if isinstance(element, str):
            if text[pos : pos + 1] != element:
                return None
            pos += 1
            continue
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if text[pos : pos + 1] == "-":  # DecimalFormat reads a negative number
            odd.append("a negative date or time field")
            pos += 1
        start = pos
        while pos < len(text) and _digit(text[pos]) is not None:
            pos += 1
        if pos == start:
            return None
        if pos - start > 9:
            odd.append("a date or time field of more than 9 digits")
        fields[element[0]] = int("".join(str(_digit(c)) for c in text[start:pos]))
        exponent = re.match(r"E-?\d+", text[pos:])  # DecimalFormat reads an exponent too
        if exponent:
            odd.append("an exponent in a date or time field")
            pos += exponent.end()
    if odd or fields["y"] < 1583:
        raise Unsupported(odd[0] if odd else "a year before 1583 (Kafka reads it on the Julian calendar)")
    year, month = divmod(fields["y"] * 12 + fields["M"] - 1, 12)
    days = days_from_civil(year, month + 1, 1) + fields["d"] - 1
    return days * DAY + ((fields["H"] * 60 + fields["m"]) * 60 + fields["s"]) * 1000 + fields["S"]


def _temporal(token: str) -> tuple | None:
    token = token.replace("\\:", ":")
    known = _TEMPORAL.get(_utf16_len(token))
    if known is None:
        return None
    millis = _sdf_parse(token, known[1])
    return None if millis is None else (("INT64" if known[0] == "Timestamp" else "INT32", known[0]), ("Date", millis))


# ---------------------------------------------------------------- numbers

_NUMBER = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\Z")
_INT_KINDS = (("Byte", "INT8", 8), ("Short", "INT16", 16), ("Integer", "INT32", 32), ("Long", "INT64", 64))


def _number(token: str) -> tuple | None:
    """Values.parseAsNumber: the smallest integer type, else FLOAT32, FLOAT64, Decimal; None if no number."""
    match = _NUMBER.match(token)
    if not match or not (match.group(2) or match.group(3)) or any(_digit(c) is None for c in token if c.isdigit()):
        return None
    sign, whole, frac, exp = match.groups()
    frac = frac or ""
    digits = "".join(str(_digit(c)) for c in whole + frac)
    if len(digits) > 4000:
        raise Unsupported("a number of more than 4000 digits")
    exponent = int("".join(str(_digit(c)) if c.isdigit() else c for c in exp)) if exp else 0
    scale = len(frac) - exponent
    if not -(2**31) <= exponent < 2**31 or not -(2**31) <= scale < 2**31:
        return None  # BigDecimal: exponent overflow
    unscaled = int(digits) * (-1 if sign == "-" else 1)
    adjusted = len(str(abs(unscaled))) - 1 - scale
    if unscaled != 0 and abs(adjusted) > 400:  # beyond every double: infinite or zero
        if adjusted > 0:
            return ("BYTES", "Decimal"), ("BigDecimal", (unscaled, scale))
        return ("FLOAT32", None), ("Float", -0.0 if unscaled < 0 else 0.0)
    exact = _exact(unscaled, scale)
    if exact is not None:
        return exact
    from fractions import Fraction

    value = Fraction(unscaled) * Fraction(10) ** -scale
    single = f32_of(value)
    if math.isfinite(single) and scale != 0:
        return ("FLOAT32", None), ("Float", single)
    double = _double_of(value)
    if math.isfinite(double) and scale != 0:
        return ("FLOAT64", None), ("Double", double)
    return ("BYTES", "Decimal"), ("BigDecimal", (unscaled, scale))


def _double_of(value: Fraction) -> float:
    try:
        return float(value)
    except OverflowError:
        return -math.inf if value < 0 else math.inf


def _exact(unscaled: int, scale: int) -> tuple | None:
    """Values.parseAsExactDecimal: an integral value in long range as INT8..INT64."""
    if unscaled == 0:
        return ("INT8", None), ("Byte", 0)
    if scale > 0:
        trailing = len(str(abs(unscaled))) - len(str(abs(unscaled)).rstrip("0"))
        if trailing < scale:
            return None
        integer = unscaled // 10**scale
    elif -scale > 40:
        return None
    else:
        integer = unscaled * 10**-scale
    if not -(2**63) <= integer < 2**63:
        return None
    for cls, type_, bits in _INT_KINDS:
        if -(2 ** (bits - 1)) <= integer < 2 ** (bits - 1):
            return (type_, None), (cls, integer)
    raise AssertionError(integer)


# ---------------------------------------------------------------- the tokenizer and parser


class _Tokens:
    """Values.Parser: tokens split at unescaped delimiters, with mark/rewind and whitespace-skipping peeks."""

    def __init__(self, text: str):
        self.text, self.pos = text, 0
        self.peeked: str | None = None
        self.previous: str | None = None

    def mark(self) -> int:
        return self.pos - (len(self.peeked) if self.peeked is not None else 0)

    def rewind(self, pos: int) -> None:
        self.pos, self.peeked, self.previous = pos, None, None

    def _more(self) -> bool:
        return self.pos < len(self.text)

    def has_next(self) -> bool:
        return self.peeked is not None or self._more()

    def _consume(self) -> str:
        escaped, start = False, self.pos
        while self._more():
            c = self.text[self.pos]
            if c == "\\":
                escaped = not escaped
            elif c in _DELIMITERS and not escaped:
                if start < self.pos:
                    return self.text[start : self.pos]
                self.pos += 1
                return c
            else:
                escaped = False
            self.pos += 1
        return self.text[start : self.pos]

    def next(self) -> str:
        if self.peeked is not None:
            self.previous, self.peeked = self.peeked, None
        else:
            self.previous = self._consume()
        return self.previous

    def next_n(self, n: int) -> str | None:
        start = self.mark()
        for _ in range(n):
            if not self.has_next():
                self.rewind(start)
                return None
            self.next()
        return self.text[start : self.pos]

    def can_consume(self, expected: str) -> bool:
        if self.peeked is None:
            if not self.has_next():
                return False
            self.peeked = self._consume()
        while _trim(self.peeked) == "" and self._more():
            self.peeked = self._consume()
        if _trim(self.peeked) == expected:
            self.peeked = None
            return True
        return False


class _Parser:
    """Values.ValueParser: (schema, value) pairs, None for null."""

    def __init__(self, text: str):
        self.original = text
        self.tokens = _Tokens(text)

    def _single(self, embedded: bool, literal: str) -> bool:
        t = self.tokens
        start = t.mark()
        if t.can_consume(literal) and (embedded or not t.has_next()):
            return True
        t.rewind(start)
        return False

    def parse(self, embedded: bool) -> tuple | None:
        t = self.tokens
        if not t.has_next():
            return None
        if embedded and t.can_consume('"'):
            return self._quoted()
        if self._single(embedded, "null"):
            return None
        for literal, flag in (("true", True), ("false", False)):
            if self._single(embedded, literal):
                return ("BOOLEAN", None), ("Boolean", flag)
        start = t.mark()
        try:
            if t.can_consume("["):
                return self._array()
            if t.can_consume("{"):
                return self._map()
        except DataError:
            t.rewind(start)
        token = t.next()
        if _trim(token) == "":
            return ("STRING", None), ("String", token)
        return self._token(embedded, _trim(token))

    def _token(self, embedded: bool, token: str) -> tuple:
        first = token[0]
        is_digit = ord(first) < 0x10000 and unicodedata.category(first) == "Nd"
        if is_digit:
            t = self.tokens
            start = t.mark()
            rest = t.next_n(4)
            found = _temporal(token + rest) if rest is not None else None
            if found:
                return found
            t.rewind(start)
            found = _temporal(token)
            if found:
                return found
        if is_digit or first in "+-":
            number = _number(token)
            if number is not None:
                return number
        if embedded:
            raise DataError("Failed to parse embedded value")
        return ("STRING", None), ("String", self.original)

    def _quoted(self) -> tuple:
        t, parts = self.tokens, []
        while t.has_next():
            if t.can_consume('"'):
                break
            parts.append(t.next())
        content = "".join(parts)
        return _temporal(content) or (("STRING", None), ("String", content))

    def _array(self) -> tuple:
        t, items, merger = self.tokens, [], SchemaMerger()
        while t.has_next():
            if t.can_consume("]"):
                if merger.common is not None:
                    items = [convert_to(merger.common, v) for v in items]
                return ("ARRAY", None), ("List", tuple(items))
            if t.can_consume(","):
                raise DataError("empty array element")
            element = self.parse(True)
            merger.merge(element)
            items.append(element[1] if element else None)
            here = t.mark()
            if t.can_consume("]"):
                t.rewind(here)
            elif not t.can_consume(","):
                raise DataError("array elements missing ','")
        raise DataError("unterminated array")

    def _map(self) -> tuple:
        t, entries, keys, values = self.tokens, {}, SchemaMerger(), SchemaMerger()
        while t.has_next():
            if t.can_consume("}"):
                pairs = list(entries.values())
                if keys.common is not None:
                    converted: dict = {}
                    for k, v in pairs:
                        k = convert_to(keys.common, k)
                        v = convert_to(values.common, v) if values.common is not None else v
                        converted.setdefault(map_key(k), [k, v])[1] = v
                    pairs = [tuple(p) for p in converted.values()]
                return ("MAP", None), ("Map", tuple(pairs))
            if t.can_consume(","):
                raise DataError("map entry with no key or value")
            key = self.parse(True)
            if key is None or not t.can_consume(":"):
                raise DataError("map entry without key or ':'")
            value = self.parse(True)
            entries.setdefault(map_key(key[1]), [key[1], None])[1] = value[1] if value else None
            t.can_consume(",")
            keys.merge(key)
            values.merge(value)
        raise DataError("unterminated map")


def parse_literal(text: str) -> tuple | None:
    """Values.parseString(text) as (schema, value), or None for null. Raises Unsupported."""
    if text == "":
        return ("STRING", None), ("String", "")
    return _Parser(text).parse(False)


# ---------------------------------------------------------------- writing (Values.convertToString)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def connect_text(value: tuple | None, embedded: bool = False) -> str:
    """Values.append: Connect's string form of a value (nested strings quoted, dates bare)."""
    if value is None:
        return "null"
    cls, payload = value
    if cls in ("Byte", "Short", "Integer", "Long"):
        return str(payload)
    if cls in ("Float", "Double"):
        if math.isfinite(payload) and payload == int(payload) and abs(payload) >= 1e7:
            raise Unsupported(
                f"the number {java_float_text(payload, cls == 'Float')}, which Java 17 and Java 19+ write differently"
            )
        return java_float_text(payload, cls == "Float")
    if cls == "BigDecimal":
        return big_decimal_text(*payload)
    if cls == "Boolean":
        return "true" if payload else "false"
    if cls == "String":
        return f'"{_escape(payload)}"' if embedded else payload
    if cls == "Date":
        return date_text(payload)
    if cls == "List":
        return "[" + ",".join(connect_text(v, True) for v in payload) + "]"
    if cls == "Map":
        return "{" + ",".join(f"{connect_text(k, True)}:{connect_text(v, True)}" for k, v in payload) + "}"
    raise AssertionError(cls)


def literal_header_bytes(literal: str) -> bytes | None:
    """The header bytes Kafka writes for InsertHeader's `value.literal` (None: a null header value)."""
    parsed = parse_literal(_trim(literal))
    return None if parsed is None else connect_text(parsed[1]).encode("utf-8")
