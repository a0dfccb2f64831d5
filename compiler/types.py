"""SQL types of the pipeline language (Flink / ksqlDB names) and their Spark DDL.

``parse_type`` reads a type string such as ``"STRUCT<name STRING, n DECIMAL(10, 2)>"``
into an immutable :class:`SqlType` tree; ``SqlType.sql()`` spells it back in our
language and ``SqlType.ddl()`` gives Spark DDL text (``DataType.fromDDL``,
``from_json``).

``TIMESTAMP(p)`` is Spark's ``TIMESTAMP_NTZ``, ``TIMESTAMP_LTZ(p)`` Spark's
``TIMESTAMP``; Spark keeps microseconds, so a precision above 6 is an error.
Standard library only.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Callable, NamedTuple

__all__ = [
    "TypeSyntaxError",
    "SqlType",
    "Primitive",
    "ArrayType",
    "MapType",
    "StructField",
    "StructType",
    "parse_type",
    "quote_name",
    "CONNECT_TYPES",
    "connect_type_name",
    "BOOLEAN",
    "TINYINT",
    "SMALLINT",
    "INT",
    "BIGINT",
    "FLOAT",
    "DOUBLE",
    "STRING",
    "BYTES",
    "DATE",
    "TIMESTAMP_LTZ_3",
    "HEADERS",
    "HEADERS_MAP",
]


MAX_TYPE_DEPTH = 64  # ARRAY/MAP/STRUCT levels in one type string: the compiler recurses once per level


class TypeSyntaxError(ValueError):
    """A type string that does not parse; ``offset`` is the 0-based problem position."""

    def __init__(self, message: str, offset: int, text: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.text = text

    def caret(self) -> str:
        """The type string with a ``^`` under the offending character (two lines)."""
        return f"{self.text}\n{' ' * self.offset}^"


# --- Primitive table ---


class _Prim(NamedTuple):
    ddl: str  # Spark DDL name
    category: str  # boolean integral fractional decimal string binary date timestamp
    params: str | None  # None, "decimal" or "timestamp"


_PRIMITIVES: dict[str, _Prim] = {
    "BOOLEAN": _Prim("BOOLEAN", "boolean", None),
    "TINYINT": _Prim("TINYINT", "integral", None),
    "SMALLINT": _Prim("SMALLINT", "integral", None),
    "INT": _Prim("INT", "integral", None),
    "BIGINT": _Prim("BIGINT", "integral", None),
    "FLOAT": _Prim("FLOAT", "fractional", None),
    "DOUBLE": _Prim("DOUBLE", "fractional", None),
    "DECIMAL": _Prim("DECIMAL", "decimal", "decimal"),
    "STRING": _Prim("STRING", "string", None),
    "BYTES": _Prim("BINARY", "binary", None),
    "DATE": _Prim("DATE", "date", None),
    "TIMESTAMP": _Prim("TIMESTAMP_NTZ", "timestamp", "timestamp"),
    "TIMESTAMP_LTZ": _Prim("TIMESTAMP", "timestamp", "timestamp"),
}

DECIMAL_MAX_PRECISION = 38
DECIMAL_DEFAULT = (10, 0)  # Flink's DECIMAL without parameters
TIMESTAMP_MAX_PRECISION = 6  # Spark keeps microseconds
TIMESTAMP_DEFAULT_PRECISION = 6  # Flink's default for TIMESTAMP(p)


def _param_error(
    name: str, precision: int | None, scale: int | None
) -> tuple[str, str] | None:
    """Why (precision, scale) are invalid for ``name`` and which one is, or None."""
    kind = _PRIMITIVES[name].params
    if kind is None:
        if precision is not None or scale is not None:
            return f"{name} takes no parameters", "precision"
        return None
    if kind == "timestamp":
        if scale is not None:
            return f"{name} takes one parameter (precision)", "scale"
        if precision is not None and precision < 0:
            return f"{name} precision {precision} is below 0", "precision"
        if precision is not None and precision > TIMESTAMP_MAX_PRECISION:
            return (
                f"precision {precision} is above {TIMESTAMP_MAX_PRECISION}: "
                f"Spark keeps microseconds; "
                f"use {name}({TIMESTAMP_MAX_PRECISION}) or less",
                "precision",
            )
        return None
    if precision is not None and not 1 <= precision <= DECIMAL_MAX_PRECISION:
        return (
            f"DECIMAL precision {precision} is out of range 1..{DECIMAL_MAX_PRECISION}",
            "precision",
        )
    if scale is not None:
        top = precision if precision is not None else DECIMAL_DEFAULT[0]
        if not 0 <= scale <= top:
            return (
                f"DECIMAL scale {scale} is out of range 0..{top} (the precision)",
                "scale",
            )
    return None


# --- Type tree ---

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def quote_name(name: str) -> str:
    """Backtick-quote ``name`` (doubling inner backticks) unless it is an identifier."""
    if _PLAIN_NAME.match(name):
        return name
    return _backtick(name)


def _backtick(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class SqlType:
    """Base of every type; immutable and hashable, compared by value."""

    def ddl(self) -> str:
        """Spark DDL text (for ``DataType.fromDDL``, ``from_json``, reader schemas)."""
        raise NotImplementedError

    def sql(self) -> str:
        """The spelling in the pipeline language; ``parse_type(t.sql()) == t``."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.sql()

    # Category predicates; only primitives answer True.
    @property
    def is_numeric(self) -> bool:
        return False

    @property
    def is_integral(self) -> bool:
        return False

    @property
    def is_timestamp(self) -> bool:
        return False

    @property
    def is_string(self) -> bool:
        return False

    @property
    def is_binary(self) -> bool:
        return False


@dataclass(frozen=True)
class Primitive(SqlType):
    """A scalar type; parameters omitted at construction take their defaults.

    ``DECIMAL`` gets (10, 0) or (p, 0); ``TIMESTAMP``/``TIMESTAMP_LTZ`` get precision 6.
    Invalid names or parameters raise ``ValueError``.
    """

    name: str
    precision: int | None = None
    scale: int | None = None

    def __post_init__(self) -> None:
        if self.name not in _PRIMITIVES:
            raise ValueError(
                f"unknown primitive {self.name!r}; "
                f"expected one of {', '.join(_PRIMITIVES)}"
            )
        problem = _param_error(self.name, self.precision, self.scale)
        if problem:
            raise ValueError(problem[0])
        kind = _PRIMITIVES[self.name].params
        if kind == "decimal":
            if self.precision is None:
                object.__setattr__(self, "precision", DECIMAL_DEFAULT[0])
            if self.scale is None:
                object.__setattr__(self, "scale", DECIMAL_DEFAULT[1])
        elif kind == "timestamp" and self.precision is None:
            object.__setattr__(self, "precision", TIMESTAMP_DEFAULT_PRECISION)

    def _params(self, sep: str) -> str:
        kind = _PRIMITIVES[self.name].params
        if kind == "decimal":
            return f"({self.precision},{sep}{self.scale})"
        if kind == "timestamp":
            return f"({self.precision})"
        return ""

    def ddl(self) -> str:
        info = _PRIMITIVES[self.name]
        return info.ddl + (self._params("") if info.params == "decimal" else "")

    def sql(self) -> str:
        return self.name + self._params(" ")

    @property
    def is_numeric(self) -> bool:
        return _PRIMITIVES[self.name].category in ("integral", "fractional", "decimal")

    @property
    def is_integral(self) -> bool:
        return _PRIMITIVES[self.name].category == "integral"

    @property
    def is_timestamp(self) -> bool:
        return _PRIMITIVES[self.name].category == "timestamp"

    @property
    def is_string(self) -> bool:
        return _PRIMITIVES[self.name].category == "string"

    @property
    def is_binary(self) -> bool:
        return _PRIMITIVES[self.name].category == "binary"


@dataclass(frozen=True)
class ArrayType(SqlType):
    """``ARRAY<element>``."""

    element: SqlType

    def ddl(self) -> str:
        return f"ARRAY<{self.element.ddl()}>"

    def sql(self) -> str:
        return f"ARRAY<{self.element.sql()}>"


@dataclass(frozen=True)
class MapType(SqlType):
    """``MAP<key, value>``."""

    key: SqlType
    value: SqlType

    def ddl(self) -> str:
        return f"MAP<{self.key.ddl()},{self.value.ddl()}>"

    def sql(self) -> str:
        return f"MAP<{self.key.sql()}, {self.value.sql()}>"


@dataclass(frozen=True)
class StructField:
    """One named field of a STRUCT; the name is any non-empty string."""

    name: str
    type: SqlType

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(
                f"a struct field name must be a non-empty string, not {self.name!r}"
            )
        if not isinstance(self.type, SqlType):
            raise ValueError(
                f"field {self.name!r}: type must be a SqlType, not {self.type!r}"
            )


def _char_equal_ignoring_case(a: str, b: str) -> bool:
    """Java's Character comparison in String.equalsIgnoreCase (one-to-one case mappings only: 'ß' stays 'ß')."""
    if a == b:
        return True
    up_a, up_b = a.upper(), b.upper()
    if len(up_a) == 1 and len(up_b) == 1 and up_a == up_b:
        return True
    low_a, low_b = up_a.lower() if len(up_a) == 1 else a.lower(), up_b.lower() if len(up_b) == 1 else b.lower()
    return len(low_a) == 1 and low_a == low_b


def same_name(a: str, b: str) -> bool:
    """Whether Spark takes two field names for the same (Java's equalsIgnoreCase, per UTF-16 unit)."""
    ua, ub = a.encode("utf-16-le", "surrogatepass"), b.encode("utf-16-le", "surrogatepass")
    if len(ua) != len(ub):
        return False
    units_a = [ua[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(ua), 2)]
    units_b = [ub[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(ub), 2)]
    return all(_char_equal_ignoring_case(x, y) for x, y in zip(units_a, units_b))


def _duplicate(names: list[str]) -> tuple[str, str] | None:
    """The first (earlier, later) names Spark takes for the same field (case ignored as Java does), or None."""
    if all(name.isascii() for name in names) and len({name.lower() for name in names}) == len(names):
        return None  # ASCII names that differ ignoring ASCII case differ for Java too
    for i, later in enumerate(names):
        for earlier in names[:i]:
            if same_name(earlier, later):
                return earlier, later
    return None


@dataclass(frozen=True)
class StructType(SqlType):
    """``STRUCT<name TYPE, ...>``: ordered fields whose names are unique ignoring case.

    An empty StructType may be built (e.g. as a schema under construction) but does not
    parse: ``STRUCT<>`` is an error.
    """

    fields: tuple[StructField, ...]

    def __post_init__(self) -> None:
        fields = tuple(self.fields)
        object.__setattr__(self, "fields", fields)
        for f in fields:
            if not isinstance(f, StructField):
                raise ValueError(f"STRUCT fields must be StructField, not {f!r}")
        dup = _duplicate([f.name for f in fields])
        if dup:
            raise ValueError(_duplicate_message(*dup))

    def ddl(self) -> str:
        return (
            "STRUCT<"
            + ", ".join(f"{_backtick(f.name)}: {f.type.ddl()}" for f in self.fields)
            + ">"
        )

    def sql(self) -> str:
        return (
            "STRUCT<"
            + ", ".join(f"{quote_name(f.name)} {f.type.sql()}" for f in self.fields)
            + ">"
        )

    def field(self, name: str) -> StructField | None:
        """The field called exactly ``name``, or None."""
        return next((f for f in self.fields if f.name == name), None)

    def names(self) -> tuple[str, ...]:
        """Field names in order."""
        return tuple(f.name for f in self.fields)

    def replace(self, name: str, new_type: SqlType) -> StructType:
        """A copy with field ``name`` retyped in place; KeyError if there is none."""
        self._require(name)
        return StructType(
            tuple(
                StructField(f.name, new_type) if f.name == name else f
                for f in self.fields
            )
        )

    def append(self, field: StructField) -> StructType:
        """A copy with ``field`` added last; ValueError if the name is taken."""
        return StructType(self.fields + (field,))

    def without(self, name: str) -> StructType:
        """A copy without field ``name``; KeyError if there is none."""
        self._require(name)
        return StructType(tuple(f for f in self.fields if f.name != name))

    def _require(self, name: str) -> None:
        if self.field(name) is None:
            raise KeyError(f"no field {name!r} in {self.sql()}")


def _duplicate_message(first: str, second: str) -> str:
    if first == second:
        return f"duplicate field name {second!r} in STRUCT"
    return (
        f"duplicate field name {second!r} in STRUCT: {first!r} is already declared "
        "(Spark compares field names ignoring case)"
    )


# --- Well-known constants and Kafka Connect names ---

BOOLEAN = Primitive("BOOLEAN")
TINYINT = Primitive("TINYINT")
SMALLINT = Primitive("SMALLINT")
INT = Primitive("INT")
BIGINT = Primitive("BIGINT")
FLOAT = Primitive("FLOAT")
DOUBLE = Primitive("DOUBLE")
STRING = Primitive("STRING")
BYTES = Primitive("BYTES")
DATE = Primitive("DATE")
TIMESTAMP_LTZ_3 = Primitive("TIMESTAMP_LTZ", 3)
HEADERS = ArrayType(
    StructType((StructField("key", STRING), StructField("value", BYTES)))
)
"""ksqlDB's ``headers: true`` column type: every header in wire order."""
HEADERS_MAP = MapType(STRING, BYTES)
"""Flink's ``headers`` metadata column type."""

CONNECT_TYPES: dict[str, Primitive] = {
    "int8": TINYINT,
    "int16": SMALLINT,
    "int32": INT,
    "int64": BIGINT,
    "float32": FLOAT,
    "float64": DOUBLE,
    "boolean": BOOLEAN,
    "string": STRING,
    "bytes": BYTES,
}
"""Kafka Connect schema type names (as used by ``Cast``) to our primitives."""

_CONNECT_NAMES: dict[SqlType, str] = {t: n for n, t in CONNECT_TYPES.items()}


def connect_type_name(t: SqlType) -> str | None:
    """The Kafka Connect schema type name of ``t`` (TINYINT -> int8, ...), or None."""
    return _CONNECT_NAMES.get(t)


# --- Tokenizer ---


class _Tok(NamedTuple):
    kind: str  # word number quoted string punct end error
    value: str  # text (words as written, quoted/string unescaped) or the error message
    offset: int


_PUNCT = "<>(),:"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9]+")
_QUOTES = {"`": "quoted", '"': "quoted", "'": "string"}


def _tokenize(text: str) -> list[_Tok]:
    """Split ``text`` into tokens; a bad character or open quote ends in an error."""
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in _PUNCT:
            toks.append(_Tok("punct", ch, i))
            i += 1
        elif m := _WORD.match(text, i):
            toks.append(_Tok("word", m.group(), i))
            i = m.end()
        elif m := _NUMBER.match(text, i):
            toks.append(_Tok("number", m.group(), i))
            i = m.end()
        elif ch in _QUOTES:
            j, parts = i + 1, []
            while True:
                k = text.find(ch, j)
                if k < 0:
                    what = "string" if ch == "'" else "quoted name"
                    toks.append(
                        _Tok("error", f"unterminated {what}: missing closing {ch}", i)
                    )
                    return toks
                parts.append(text[j:k])
                if text.startswith(ch * 2, k):
                    parts.append(ch)
                    j = k + 2
                else:
                    break
            toks.append(_Tok(_QUOTES[ch], "".join(parts), i))
            i = k + 1
        else:
            hint = " (quote names that are not plain identifiers with backticks)"
            message = f"unexpected character {ch!r}" + (hint if ch.isalnum() else "")
            toks.append(_Tok("error", message, i))
            return toks
    toks.append(_Tok("end", "", n))
    return toks


def _describe(tok: _Tok) -> str:
    """How a token is named in 'found ...' messages."""
    if tok.kind == "end":
        return "end of input"
    if tok.kind == "quoted":
        return f"quoted name {_backtick(tok.value)}"
    if tok.kind == "string":
        return "string '" + tok.value.replace("'", "''") + "'"
    return f"'{tok.value}'"


# --- Grammar tables ---


class _Head(NamedTuple):
    """How a type keyword is parsed: ``form`` names a ``_Parser._form_*`` method."""

    target: str  # canonical primitive name, or ARRAY / MAP / STRUCT
    form: str  # plain, length, decimal, timestamp, array, map, struct


_HEADS: dict[str, _Head] = {
    "BOOLEAN": _Head("BOOLEAN", "plain"),
    "TINYINT": _Head("TINYINT", "plain"),
    "SMALLINT": _Head("SMALLINT", "plain"),
    "INT": _Head("INT", "plain"),
    "INTEGER": _Head("INT", "plain"),
    "BIGINT": _Head("BIGINT", "plain"),
    "FLOAT": _Head("FLOAT", "plain"),
    "REAL": _Head("FLOAT", "plain"),
    "DOUBLE": _Head("DOUBLE", "plain"),
    "DECIMAL": _Head("DECIMAL", "decimal"),
    "DEC": _Head("DECIMAL", "decimal"),
    "NUMERIC": _Head("DECIMAL", "decimal"),
    "STRING": _Head("STRING", "plain"),
    "VARCHAR": _Head("STRING", "length"),
    "CHAR": _Head("STRING", "length"),
    "BYTES": _Head("BYTES", "plain"),
    "BINARY": _Head("BYTES", "length"),
    "VARBINARY": _Head("BYTES", "length"),
    "DATE": _Head("DATE", "plain"),
    "TIMESTAMP": _Head("TIMESTAMP", "timestamp"),
    "TIMESTAMP_LTZ": _Head("TIMESTAMP_LTZ", "timestamp"),
    "ARRAY": _Head("ARRAY", "array"),
    "MAP": _Head("MAP", "map"),
    "STRUCT": _Head("STRUCT", "struct"),
    "ROW": _Head("STRUCT", "struct"),
}


class _Refuse(NamedTuple):
    """A recognised spelling we do not support, with the advice to give."""

    message: str


# Multi-word spellings after a head and its parameters: words -> canonical target.
_SUFFIXES: dict[str, dict[tuple[str, ...], str | _Refuse]] = {
    "DOUBLE": {("PRECISION",): "DOUBLE"},
    "TIMESTAMP": {
        ("WITHOUT", "TIME", "ZONE"): "TIMESTAMP",
        ("WITH", "LOCAL", "TIME", "ZONE"): "TIMESTAMP_LTZ",
        ("WITH", "TIME", "ZONE"): _Refuse(
            "TIMESTAMP WITH TIME ZONE is not supported (Spark has no zoned timestamp); "
            "use TIMESTAMP_LTZ(p) or TIMESTAMP(p) WITH LOCAL TIME ZONE"
        ),
    },
}

# Type names of Flink, ksqlDB or Spark that we know but do not support, with advice.
_UNSUPPORTED: dict[str, str] = {
    "TIME": "TIME is not supported; use STRING, INT (milliseconds of day) or TIMESTAMP",
    "INTERVAL": "INTERVAL types are not supported; use BIGINT (milliseconds)",
    "MULTISET": "MULTISET is not supported; use MAP<T, INT> or ARRAY<T>",
    "RAW": "RAW is not supported; use BYTES",
    "NULL": "NULL is not a column type",
    "VARIANT": "VARIANT is not supported; use STRING (JSON text)",
    "TIMESTAMP_NTZ": "TIMESTAMP_NTZ is Spark's name; write TIMESTAMP(p)",
    "LONG": "LONG is Spark's name; write BIGINT",
    "SHORT": "SHORT is Spark's name; write SMALLINT",
    "BYTE": "BYTE is Spark's name; write TINYINT",
}

# --- Parser ---


class _Parser:
    """Recursive-descent parser over the token list of one type string."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokenize(text)
        self.i = 0
        self.depth = 0

    # token helpers

    def peek(self, ahead: int = 0) -> _Tok:
        tok = self.toks[min(self.i + ahead, len(self.toks) - 1)]
        if tok.kind == "error" and ahead == 0:
            raise self.error(tok.value, tok.offset)
        return tok

    def next(self) -> _Tok:
        tok = self.peek()
        if tok.kind != "end":
            self.i += 1
        return tok

    def error(self, message: str, offset: int) -> TypeSyntaxError:
        return TypeSyntaxError(message, offset, self.text)

    def is_punct(self, ch: str) -> bool:
        tok = self.peek()
        return tok.kind == "punct" and tok.value == ch

    def is_word(self, word: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok.kind == "word" and tok.value.upper() == word

    def expect(self, ch: str, purpose: str) -> _Tok:
        tok = self.peek()
        if tok.kind == "punct" and tok.value == ch:
            return self.next()
        raise self.error(
            f"expected '{ch}' {purpose}, found {_describe(tok)}", tok.offset
        )

    def number(self, what: str) -> tuple[int, int]:
        tok = self.peek()
        if tok.kind != "number":
            raise self.error(f"expected {what}, found {_describe(tok)}", tok.offset)
        self.next()
        return int(tok.value), tok.offset

    def params(self, head: str, names: tuple[str, ...]) -> list[tuple[int, int]]:
        """Optional ``(n[, m])``: up to ``len(names)`` (value, offset) pairs."""
        if not self.is_punct("("):
            return []
        open_tok = self.next()
        values = [self.number(f"{head} {names[0]} (a number)")]
        while self.is_punct(",") and len(values) < len(names):
            self.next()
            values.append(self.number(f"{head} {names[len(values)]} (a number)"))
        close = f"to close {head}(...) opened at offset {open_tok.offset}"
        if self.is_punct(",") and len(names) == 1:
            close = f"to close {head}(...): {head} takes one parameter ({names[0]})"
        self.expect(")", close)
        return values

    # grammar

    def parse(self) -> SqlType:
        tok = self.peek()
        if tok.kind == "end":
            raise self.error("expected a type, found end of input", tok.offset)
        result = self.type()
        tok = self.peek()
        if tok.kind != "end":
            raise self.error(
                f"unexpected {_describe(tok)} after type {result.sql()}", tok.offset
            )
        return result

    def type(self, what: str = "a type") -> SqlType:
        tok = self.peek()
        if tok.kind != "word":
            raise self.error(f"expected {what}, found {_describe(tok)}", tok.offset)
        word = tok.value.upper()
        head = _HEADS.get(word)
        if head is None:
            raise self.error(self.unknown_message(tok.value), tok.offset)
        self.next()
        form: Callable[[str, _Tok], SqlType] = getattr(self, f"_form_{head.form}")
        nested = head.form in ("array", "map", "struct")
        self.depth += nested
        if self.depth > MAX_TYPE_DEPTH:
            raise self.error(f"the type nests deeper than {MAX_TYPE_DEPTH} levels here", tok.offset)
        try:
            return form(head.target, tok)
        finally:
            self.depth -= nested

    @staticmethod
    def unknown_message(word: str) -> str:
        upper = word.upper()
        if upper in _UNSUPPORTED:
            return _UNSUPPORTED[upper]
        close = difflib.get_close_matches(upper, list(_HEADS), n=1)
        if close:
            return f"unknown type {word!r}; did you mean {close[0]}?"
        known = (
            ", ".join(n for n in _PRIMITIVES)
            + ", ARRAY<T>, MAP<K, V>, STRUCT<name T, ...>"
        )
        return f"unknown type {word!r}; expected one of {known}"

    def primitive(self, name: str, params: list[tuple[int, int]]) -> Primitive:
        """Build a primitive, reporting bad parameters at their offset."""
        precision = params[0][0] if params else None
        scale = params[1][0] if len(params) > 1 else None
        problem = _param_error(name, precision, scale)
        if problem:
            message, which = problem
            raise self.error(message, params[0 if which == "precision" else 1][1])
        return Primitive(name, precision, scale)

    def suffix(self, head: str, target: str) -> str:
        """Consume a multi-word spelling (``WITH LOCAL TIME ZONE``); the new target."""
        options = _SUFFIXES.get(head, {})
        for words, new_target in options.items():
            if all(self.is_word(w, k) for k, w in enumerate(words)):
                start = self.peek().offset
                self.i += len(words)
                if isinstance(new_target, _Refuse):
                    raise self.error(new_target.message, start)
                return new_target
        nxt = self.peek()
        if any(self.is_word(words[0]) for words in options):
            spellings = " or ".join(
                repr(" ".join(w))
                for w, t in options.items()
                if isinstance(t, str) and w[0] == nxt.value.upper()
            )
            raise self.error(f"expected {spellings} after {head}", nxt.offset)
        return target

    def _form_plain(self, target: str, tok: _Tok) -> SqlType:
        if self.is_punct("("):
            raise self.error(
                f"{tok.value.upper()} takes no parameters", self.peek().offset
            )
        return Primitive(self.suffix(tok.value.upper(), target))

    def _form_length(self, target: str, tok: _Tok) -> SqlType:
        for value, offset in self.params(tok.value.upper(), ("length",)):
            if value < 1:
                raise self.error(
                    f"{tok.value.upper()} length must be at least 1", offset
                )
        return Primitive(target)

    def _form_decimal(self, target: str, tok: _Tok) -> SqlType:
        return self.primitive(
            target, self.params(tok.value.upper(), ("precision", "scale"))
        )

    def _form_timestamp(self, target: str, tok: _Tok) -> SqlType:
        head = tok.value.upper()
        params = self.params(head, ("precision",))
        name = self.suffix(head, target)
        return self.primitive(name, params)

    def open_angle(self, head: str, tok: _Tok) -> None:
        self.expect("<", f"after {head}, as in {head}<{_ANGLE_EXAMPLES[head]}>")

    def close_angle(self, head: str, tok: _Tok) -> None:
        self.expect(">", f"to close {head}<...> opened at offset {tok.offset}")

    def _form_array(self, target: str, tok: _Tok) -> SqlType:
        self.open_angle("ARRAY", tok)
        element = self.type("the element type of ARRAY<T>")
        self.close_angle("ARRAY", tok)
        return ArrayType(element)

    def _form_map(self, target: str, tok: _Tok) -> SqlType:
        self.open_angle("MAP", tok)
        key = self.type("the key type of MAP<K, V>")
        self.expect(",", "between the key and value types of MAP<K, V>")
        value = self.type("the value type of MAP<K, V>")
        self.close_angle("MAP", tok)
        return MapType(key, value)

    def _form_struct(self, target: str, tok: _Tok) -> SqlType:
        head = tok.value.upper()
        self.open_angle(head, tok)
        if self.is_punct(">"):
            raise self.error(
                f"empty {head}<>: a {head} needs at least one field", self.peek().offset
            )
        fields: list[StructField] = []
        offsets: dict[str, tuple[str, int]] = {}
        while True:
            name, offset = self.field_name(head)
            dup = offsets.get(name.casefold())
            if dup is not None:
                raise self.error(_duplicate_message(dup[0], name), offset)
            offsets[name.casefold()] = (name, offset)
            if self.is_punct(":"):
                self.next()
            fields.append(
                StructField(name, self.type(f"a type for field {quote_name(name)}"))
            )
            self.field_options()
            if not self.is_punct(","):
                break
            self.next()
        self.expect(
            ">",
            f"to close {head}<...> (opened at offset {tok.offset}) "
            "or ',' before a field",
        )
        return StructType(tuple(fields))

    def field_name(self, head: str) -> tuple[str, int]:
        tok = self.peek()
        if tok.kind in ("word", "quoted"):
            if not tok.value:
                raise self.error("empty field name", tok.offset)
            self.next()
            return tok.value, tok.offset
        hint = " (quote other names with backticks)" if tok.kind == "number" else ""
        message = (
            f"expected a field name in {head}<name TYPE, ...>, found {_describe(tok)}"
        )
        raise self.error(message + hint, tok.offset)

    def field_options(self) -> None:
        """Skip optional ``NOT NULL`` and ``COMMENT 'x'`` (or Flink's bare 'x')."""
        if self.is_word("NOT"):
            self.next()
            if not self.is_word("NULL"):
                tok = self.peek()
                raise self.error(
                    f"expected NULL after NOT, found {_describe(tok)}", tok.offset
                )
            self.next()
        if self.is_word("COMMENT"):
            self.next()
            tok = self.peek()
            if tok.kind != "string":
                raise self.error(
                    f"expected a quoted comment after COMMENT, as in COMMENT 'text', "
                    f"found {_describe(tok)}",
                    tok.offset,
                )
        if self.peek().kind == "string":
            self.next()


_ANGLE_EXAMPLES = {
    "ARRAY": "T",
    "MAP": "K, V",
    "STRUCT": "name T, ...",
    "ROW": "name T, ...",
}


def parse_type(text: str) -> SqlType:
    """Parse a type string of the pipeline language; raises :class:`TypeSyntaxError`."""
    if not isinstance(text, str):
        raise TypeSyntaxError(
            f"a type must be a string, not {type(text).__name__}", 0, str(text)
        )
    return _Parser(text).parse()
