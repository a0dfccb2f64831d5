"""Type strings of the pipeline language (Flink / ksqlDB spellings) -> :class:`SqlType` trees.

``parse_type("STRUCT<name STRING, n DECIMAL(10, 2)>")``: a recursive-descent parser over ``type_tokens``,
driven by tables of type keywords, multi-word spellings and refused names; every error is a
:class:`TypeSyntaxError` with the offset of the problem. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from .field_names import duplicate_message
from .sql import (
    _PRIMITIVES,
    ArrayType,
    MapType,
    Primitive,
    SqlType,
    StructField,
    StructType,
    _param_error,
    quote_name,
)
from .tokens import _describe, _Tok, _tokenize

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
        raise self.error(f"expected '{ch}' {purpose}, found {_describe(tok)}", tok.offset)

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
            raise self.error(f"unexpected {_describe(tok)} after type {result.sql()}", tok.offset)
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
        import difflib  # only for an error: its import costs every cold start

        close = difflib.get_close_matches(upper, list(_HEADS), n=1)
        if close:
            return f"unknown type {word!r}; did you mean {close[0]}?"
        known = ", ".join(n for n in _PRIMITIVES) + ", ARRAY<T>, MAP<K, V>, STRUCT<name T, ...>"
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
                repr(" ".join(w)) for w, t in options.items() if isinstance(t, str) and w[0] == nxt.value.upper()
            )
            raise self.error(f"expected {spellings} after {head}", nxt.offset)
        return target

    def _form_plain(self, target: str, tok: _Tok) -> SqlType:
        if self.is_punct("("):
            raise self.error(f"{tok.value.upper()} takes no parameters", self.peek().offset)
        return Primitive(self.suffix(tok.value.upper(), target))

    def _form_length(self, target: str, tok: _Tok) -> SqlType:
        for value, offset in self.params(tok.value.upper(), ("length",)):
            if value < 1:
                raise self.error(f"{tok.value.upper()} length must be at least 1", offset)
        return Primitive(target)

    def _form_decimal(self, target: str, tok: _Tok) -> SqlType:
        return self.primitive(target, self.params(tok.value.upper(), ("precision", "scale")))

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
            raise self.error(f"empty {head}<>: a {head} needs at least one field", self.peek().offset)
        fields: list[StructField] = []
        offsets: dict[str, tuple[str, int]] = {}
        while True:
            name, offset = self.field_name(head)
            dup = offsets.get(name.casefold())
            if dup is not None:
                raise self.error(duplicate_message(dup[0], name), offset)
            offsets[name.casefold()] = (name, offset)
            if self.is_punct(":"):
                self.next()
            fields.append(StructField(name, self.type(f"a type for field {quote_name(name)}")))
            self.field_options()
            if not self.is_punct(","):
                break
            self.next()
        self.expect(
            ">",
            f"to close {head}<...> (opened at offset {tok.offset}) or ',' before a field",
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
        message = f"expected a field name in {head}<name TYPE, ...>, found {_describe(tok)}"
        raise self.error(message + hint, tok.offset)

    def field_options(self) -> None:
        """Skip optional ``NOT NULL`` and ``COMMENT 'x'`` (or Flink's bare 'x')."""
        if self.is_word("NOT"):
            self.next()
            if not self.is_word("NULL"):
                tok = self.peek()
                raise self.error(f"expected NULL after NOT, found {_describe(tok)}", tok.offset)
            self.next()
        if self.is_word("COMMENT"):
            self.next()
            tok = self.peek()
            if tok.kind != "string":
                raise self.error(
                    f"expected a quoted comment after COMMENT, as in COMMENT 'text', found {_describe(tok)}",
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
        raise TypeSyntaxError(f"a type must be a string, not {type(text).__name__}", 0, str(text))
    return _Parser(text).parse()
