"""Record tests name only what is written (SPEC section 9): a name in `expect` or `expect_dead_letters` that the
sink or the dead-letter queue never writes (a misspelt field, at any depth) is a compile error at that name, found
before any Spark run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..diagnostics import did_you_mean
from ..types.sql import STRING, ArrayType, MapType, SqlType, StructField, StructType

CONTEXT_PREFIX = "__connect.errors."
# Kafka Connect's context headers, as a dead letter carries them (deadletterqueue.context.headers.enable)
CONTEXT_HEADERS = tuple(
    CONTEXT_PREFIX + name
    for name in ("topic", "partition", "offset", "stage", "class.name", "exception.message", "connector.name")
)
# files sources also name the line's file and number (docs/errors.md)
FILE_HEADERS = ("__pipec.errors.file.path", "__pipec.errors.file.line")


def is_bytes(value: Any) -> bool:
    """`{base64: ...}`: exact bytes, not a record."""
    return isinstance(value, dict) and set(value) == {"base64"}


def path_text(path: tuple) -> str:
    """`value.items[0].at` for the path ("value", "items", 0, "at")."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def unwritten(expected: Any, t: SqlType | None, path: tuple) -> Iterator[tuple[tuple, tuple[str, ...]]]:
    """(path of each name in `expected` that a value of type `t` does not have, the names there are)."""
    if isinstance(expected, dict) and not is_bytes(expected):
        if isinstance(t, StructType):
            for name, inner in expected.items():
                found = t.field(name)
                if found is None:
                    yield path + (name,), t.names()
                else:
                    yield from unwritten(inner, found.type, path + (name,))
        elif isinstance(t, MapType):  # any key: a map holds what the records hold
            for name, inner in expected.items():
                yield from unwritten(inner, t.value, path + (name,))
        elif expected:  # a mapping where a primitive (or nothing) is written
            yield path + (next(iter(expected)),), ()
    elif isinstance(expected, list) and isinstance(t, ArrayType):
        for i, inner in enumerate(expected):
            yield from unwritten(inner, t.element, path + (i,))


def sample_type(values: list[Any]) -> SqlType | None:
    """The names the given values hold, as a type (leaves STRING): what a dead letter, the record as read, can
    name. None when no given value holds a record."""
    records = [v for v in values if isinstance(v, dict) and not is_bytes(v)]
    lists = [v for v in values if isinstance(v, list)]
    if records:
        names: dict[str, list] = {}
        for r in records:
            for name, inner in r.items():
                names.setdefault(name, []).append(inner)
        return StructType(tuple(StructField(n, sample_type(vs) or STRING) for n, vs in names.items()))
    if lists:
        return ArrayType(sample_type([x for v in lists for x in v]) or STRING)
    return None


def message(what: str, path: tuple, there: tuple[str, ...], why: str) -> tuple[str, str | None]:
    """(message, hint) for a name at `path` that is never written."""
    name = path[-1]
    parent = path_text(path[:-1])
    if not there:
        return (
            f"{what} names {path_text(path)}, but {parent} is written as a single value, not a record",
            f"expect the whole value: {parent}: <value>",
        )
    return (
        f"{what} names {path_text(path)}, which {why}; fields in {parent}: {', '.join(there)}",
        did_you_mean(str(name), there) or f"name one of the fields of {parent}, or leave it out",
    )
