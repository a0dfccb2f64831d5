"""JSON values as JSON Schema compares and matches them: equality where a boolean is never a number, uniqueness
of array items, and `pattern` regexes with ECMA-262's `$`."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any


def _unbool(value: Any, true=object(), false=object()) -> Any:
    """True and False as values no number equals (JSON has no 1 == true)."""
    return true if value is True else false if value is False else value


def equal(one: Any, two: Any) -> bool:
    """JSON equality: recursive through arrays and objects, and a boolean never equals a number."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(key in two and equal(value, two[key]) for key, value in one.items())
    return _unbool(one) == _unbool(two)


def unique(items: list) -> bool:
    """No two items equal (`equal`): neighbours after sorting where the items sort, else every pair."""
    try:
        ordered = sorted(_unbool(item) for item in items)
        return not any(equal(a, b) for a, b in pairwise(ordered))
    except (NotImplementedError, TypeError):
        seen: list = []
        for item in items:
            item = _unbool(item)
            if any(equal(other, item) for other in seen):
                return False
            seen.append(item)
        return True


def ecma_regex(pattern: str) -> re.Pattern:
    """`pattern` compiled with ECMA-262's meaning of `$`, as JSON Schema defines patterns: the end of the value.
    Python's `$` also matches before a final newline, so each `$` outside a character class becomes `\\Z`."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
        elif c == "]" and in_class:
            in_class = False
        out.append(r"\Z" if c == "$" and not in_class else c)
        i += 1
    return re.compile("".join(out))
