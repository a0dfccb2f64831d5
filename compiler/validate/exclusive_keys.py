"""Keys that exclude each other: each after the first in the file is reported, in words, at its key."""

from __future__ import annotations

from ..diagnostics import Collector
from ..load.document import Document
from ..resolve.errors_policy import PATH, TOPIC

# (the mapping, '*' for any key or index; keys of which it may hold one; why)
EXCLUSIVE = (
    (("source",), ("topics", "topic-pattern"), "a kafka source reads a list of topics or the topics a pattern matches"),
    (
        ("source", "columns", "*"),
        ("metadata", "headers", "header"),
        "a column holds one metadata key, all the headers, or one header's value",
    ),
    (("errors",), (TOPIC, PATH), "dead letters go to one target: a Kafka topic or a folder"),
    (("tests", "*"), ("expect", "expect_error"), "a test expects the records written, or a record error"),
    (
        ("tests", "*"),
        ("expect_dead_letters", "expect_error"),
        "a test expects dead letters, or a record error that stops the job",
    ),
)


def _mappings(data, pattern: tuple, path: tuple = ()):
    """(path, mapping) of every mapping in `data` matching `pattern`."""
    if not pattern:
        if isinstance(data, dict):
            yield path, data
        return
    head, rest = pattern[0], pattern[1:]
    if isinstance(data, dict):
        children = data.items() if head == "*" else ([(head, data[head])] if head in data else [])
    elif isinstance(data, list):
        children = enumerate(data) if head == "*" else []
    else:
        children = []
    for key, child in children:
        yield from _mappings(child, rest, path + (key,))


def check_exclusive(doc: Document, diags: Collector) -> frozenset:
    """Report each mapping holding two keys that exclude each other; the paths of both keys (schema validation
    then says nothing more about them)."""
    reported = set()
    for pattern, keys, why in EXCLUSIVE:
        for path, mapping in _mappings(doc.data, pattern):
            present = sorted((doc.smap.key(path + (k,)), k) for k in keys if k in mapping)
            if len(present) < 2:
                continue
            (first_loc, first), later = present[0], present[1:]
            for loc, key in later:
                diags.error(
                    "E111",
                    f"{key} cannot be used together with {first} (line {first_loc.line}): {why}",
                    loc,
                    f"keep one of them: remove {key} or {first}",
                )
            reported.update(path + (k,) for _, k in present)
    return frozenset(reported)
