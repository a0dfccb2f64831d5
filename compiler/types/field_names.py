"""Field names as Spark compares them: ignoring case as Java's String.equalsIgnoreCase does (per UTF-16 unit)."""

from __future__ import annotations


def _unit_key(c: str) -> str:
    """One character as Java's String.equalsIgnoreCase compares it: the lower case of its upper case, each kept
    only where it is one character (Java's Character mappings are one-to-one: 'ß' stays 'ß'). Two characters
    are equal ignoring case exactly when their keys are (held against Java's rule over every cased BMP character
    in tests/unit/test_types.py). A character beyond the BMP is two UTF-16 units without case: itself."""
    if ord(c) > 0xFFFF:
        return c
    upper = c.upper()
    upper = upper if len(upper) == 1 else c
    lower = upper.lower()
    return lower if len(lower) == 1 else upper


def fold(name: str) -> str:
    """`name` with case folded as Spark compares field names: two names are the same field exactly when their
    folds are equal. Linear in the name (comparing each pair of names unit by unit took seconds for 20 long
    non-ASCII column names)."""
    if name.isascii():  # Java's case mappings of ASCII letters are Python's: A-Z and a-z
        return name.lower()
    return "".join(map(_unit_key, name))


def same_name(a: str, b: str) -> bool:
    """Whether Spark takes two field names for the same (Java's equalsIgnoreCase, per UTF-16 unit)."""
    return fold(a) == fold(b)


def duplicate_pair(names: list[str]) -> tuple[str, str] | None:
    """The first (earlier, later) names Spark takes for the same field (case ignored as Java does), or None."""
    seen: dict[str, str] = {}
    for name in names:
        key = fold(name)
        if key in seen:
            return seen[key], name
        seen[key] = name
    return None


def duplicate_message(first: str, second: str) -> str:
    if first == second:
        return f"duplicate field name {second!r} in STRUCT"
    return (
        f"duplicate field name {second!r} in STRUCT: {first!r} is already declared "
        "(Spark compares field names ignoring case)"
    )
