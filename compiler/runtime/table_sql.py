"""Helpers every job reading or writing a lakehouse table (Delta Lake, Iceberg) uses: names and text quoted for
Spark SQL, and whether two column types are the same as the table format stores them."""

from __future__ import annotations

import re


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_text(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def same_type(left: str, right: str, fmt: str) -> bool:
    """Whether two Spark types (DDL or simpleString) are the same, as the format stores them."""

    def norm(text: str) -> str:
        text = re.sub(r"[\s`]", "", text.lower())
        return re.sub(r"\b(tinyint|smallint)\b", "int", text) if fmt == "iceberg" else text

    return norm(left) == norm(right)


def retyped(have: dict[str, str], columns: dict[str, str], fmt: str) -> list[str]:
    """The columns the table (`have`: name -> type) holds in another type than `columns` declares."""
    return [c for c in columns if c in have and not same_type(have[c], columns[c], fmt)]


def retyped_text(names: list[str], have: dict[str, str], columns: dict[str, str]) -> str:
    """The part of a start-up error that names each retyped column with both types."""
    return "columns of another type: " + ", ".join(
        f"{c} (table {have[c]}, pipeline {columns[c].lower()})" for c in names
    )
