"""Field names as Spark compares them: ignoring case as Java's String.equalsIgnoreCase does (per UTF-16 unit)."""

from __future__ import annotations


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
    if a.isascii() and b.isascii():  # Java's case mappings of ASCII letters are Python's: A-Z and a-z
        return len(a) == len(b) and a.lower() == b.lower()
    ua, ub = a.encode("utf-16-le", "surrogatepass"), b.encode("utf-16-le", "surrogatepass")
    if len(ua) != len(ub):
        return False
    units_a = [ua[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(ua), 2)]
    units_b = [ub[i:i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(ub), 2)]
    return all(_char_equal_ignoring_case(x, y) for x, y in zip(units_a, units_b))


def duplicate_pair(names: list[str]) -> tuple[str, str] | None:
    """The first (earlier, later) names Spark takes for the same field (case ignored as Java does), or None."""
    if all(name.isascii() for name in names) and len({name.lower() for name in names}) == len(names):
        return None  # ASCII names that differ ignoring ASCII case differ for Java too
    for i, later in enumerate(names):
        for earlier in names[:i]:
            if same_name(earlier, later):
                return earlier, later
    return None


def duplicate_message(first: str, second: str) -> str:
    if first == second:
        return f"duplicate field name {second!r} in STRUCT"
    return (
        f"duplicate field name {second!r} in STRUCT: {first!r} is already declared "
        "(Spark compares field names ignoring case)"
    )
