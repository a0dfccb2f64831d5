"""The keys every field transform shares, KIP-821's `field.syntax.version` and KIP-1040's
`replace.null.with.default`, and the readers of the field paths their other keys hold."""

from __future__ import annotations

from .base import ConfigKey, ConfigReader
from .field_paths import FieldPath, PathSyntaxError, parse_path, parse_syntax_version

SYNTAX_KEY = ConfigKey(
    "field.syntax.version",
    "STRING",
    "V1",
    "KIP-821 syntax of every field path of this step. V1: each field name is one top-level name (a dot is part of "
    "the name). V2: dotted paths into nested structs, with backticks around names that hold dots and a backslash "
    "escaping a backtick.",
    ("V1", "V2"),
    ignore_case=True,
)
NULL_DEFAULT_KEY = ConfigKey(
    "replace.null.with.default",
    "BOOLEAN",
    True,
    "Kafka's KIP-1040 key: accepted for compatibility, with no effect (pipec's columns have no default values).",
)


def read_syntax(reader: ConfigReader) -> str:
    """`field.syntax.version`, case-insensitive V1/V2."""
    raw = reader.string("field.syntax.version")
    if raw is None:
        return "V1"
    version = parse_syntax_version(raw)
    if version is None:
        reader.error(
            "field.syntax.version", f"'field.syntax.version' must be V1 or V2 (any case), not '{raw}'", "write V1 or V2"
        )
        return "V1"
    return version


def read_path(reader: ConfigReader, key: str, text: str, version: str) -> FieldPath | None:
    """Parse one configured path; an unbalanced backtick is reported at the key."""
    try:
        path = parse_path(text, version)
    except PathSyntaxError as exc:
        reader.error(
            key, exc.message, "wrap the whole name in backticks, or escape the backtick with a backslash", code="E302"
        )
        return None
    if not path.steps or "" in path.steps:
        reader.error(
            key, f"'{text}' names an empty field", "field names cannot be empty (check for a stray '.')", code="E305"
        )
        return None
    return path
