"""Limits on what a pipeline file may ask of the loader, checked on YAML's event stream before any tree is built.

A document nested deeper than MAX_DEPTH, or whose aliases expand it to more than MAX_VALUES values (a
"billion laughs" file is a few lines that expand to billions) or MAX_CHARS characters of scalars (one long
string repeated through an alias 20,000 times), is refused at the event that crosses the limit. MAX_CHARS is
the one budget of a document's size: the loader refuses a file's text over it too, so a tree without aliases
(whose scalars are never longer than the text that spells them) is within it. The scan is iterative and linear
in the file's length, so hostile input costs as much as reading it.
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

MAX_DEPTH = 64  # nested mappings and sequences; a pipeline needs about 8, test records a few more
MAX_VALUES = 50_000  # values (scalars, mappings, sequences) after expanding aliases; a large pipeline has ~2,000
MAX_CHARS = 2_000_000  # characters of the file, and of its scalars with aliases expanded; a large pipeline has ~50,000

_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


@dataclass(frozen=True, slots=True)
class Exceeded:
    """Which limit a document crosses and where (0-based line and column of the event that crosses it)."""

    message: str
    hint: str
    line: int
    col: int


@dataclass(slots=True)
class _Node:
    """An open collection: the values and characters counted when it opened, its tallest child, its anchor."""

    start: int
    chars: int
    anchor: str | None
    height: int = 0


_RECURSIVE = (
    "a recursive alias: it repeats a collection that holds it, without end",
    "an alias (*name) may only repeat a value that ends before it",
)


def _too_deep(depth: int) -> tuple[str, str]:
    return (
        f"the document nests deeper than {MAX_DEPTH} levels (level {depth} here)",
        f"pipec reads at most {MAX_DEPTH} nested mappings and lists; flatten the structure",
    )


def _too_big(values: int, aliased: int) -> tuple[str, str]:
    if aliased:
        return (
            f"the document holds more than {MAX_VALUES:,} values, counting each repetition through an alias "
            f"({values:,} by here, {aliased:,} of them through aliases)",
            f"pipec reads at most {MAX_VALUES:,} values with aliases (*name) expanded; use fewer aliases",
        )
    return (
        f"the document holds more than {MAX_VALUES:,} values",
        f"pipec reads at most {MAX_VALUES:,} values; split the file",
    )


def _too_long(chars: int, aliased: int) -> tuple[str, str]:
    through = f", {aliased:,} of them through aliases" if aliased else ""
    return (
        f"the document's text is longer than {MAX_CHARS:,} characters, counting each repetition through an alias "
        f"({chars:,} by here{through})",
        f"pipec reads at most {MAX_CHARS:,} characters of values with aliases (*name) expanded; repeat less",
    )


def within(node: yaml.Node) -> bool:
    """True when a composed document certainly crosses no limit: a tree (no node reached twice: no alias) of
    at most MAX_VALUES values nested at most MAX_DEPTH collections deep (and, from a text within MAX_CHARS,
    within MAX_CHARS). Cheaper than `scan`, which finds
    where a limit is crossed; for anything else (aliases, a large or deep document) ask `scan`."""
    seen: set[int] = set()
    pending = [(node, 0)]
    while pending:
        node, depth = pending.pop()
        if id(node) in seen or len(seen) >= MAX_VALUES:
            return False
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            continue
        depth += 1
        if depth > MAX_DEPTH:
            return False
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                pending.append((key, depth))
                pending.append((value, depth))
        else:
            pending.extend((item, depth) for item in node.value)
    return True


def scan(text: str, *loader_classes: type) -> Exceeded | None:
    """The first limit `text` crosses, or None. Each loader class is tried in turn while they raise a syntax
    error (libyaml stops at its own depth limit before yielding the events): the last one's error ends the scan
    quietly, and the parser reports it."""
    for loader_class in loader_classes:
        try:
            return _scan(text, loader_class)
        except (yaml.YAMLError, ValueError):  # ValueError: a \U escape past U+10FFFF (the parser reports it)
            continue
    return None


def _scan(text: str, loader_class: type) -> Exceeded | None:
    loader = loader_class(text)
    stack: list[_Node] = []
    values = chars = aliased = aliased_chars = 0
    anchors: dict[str, tuple[int, int, int]] = {}  # anchor -> (values, characters, height) of the node it names
    try:
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return None
            size = height = 0
            if isinstance(event, _OPEN):
                stack.append(_Node(values, chars, event.anchor))
                values += 1
                if len(stack) > MAX_DEPTH:
                    return Exceeded(*_too_deep(len(stack)), event.start_mark.line, event.start_mark.column)
            elif isinstance(event, _CLOSE):
                node = stack.pop()
                size, height = values - node.start, node.height + 1
                if node.anchor:
                    anchors[node.anchor] = (size, chars - node.chars, height)
            elif isinstance(event, yaml.ScalarEvent):
                values += 1
                chars += len(event.value)
                size, height = 1, 1
                if event.anchor:
                    anchors[event.anchor] = (1, len(event.value), 1)
            elif isinstance(event, yaml.AliasEvent):
                if any(node.anchor == event.anchor for node in stack):
                    return Exceeded(*_RECURSIVE, event.start_mark.line, event.start_mark.column)
                size, length, height = anchors.get(event.anchor, (1, 0, 1))
                values, aliased = values + size, aliased + size
                chars, aliased_chars = chars + length, aliased_chars + length
                if len(stack) + height > MAX_DEPTH:
                    return Exceeded(*_too_deep(len(stack) + height), event.start_mark.line, event.start_mark.column)
            else:
                continue
            if stack:
                stack[-1].height = max(stack[-1].height, height)
            if values > MAX_VALUES:
                return Exceeded(*_too_big(values, aliased), event.start_mark.line, event.start_mark.column)
            if chars > MAX_CHARS:
                return Exceeded(*_too_long(chars, aliased_chars), event.start_mark.line, event.start_mark.column)
    finally:
        loader.dispose()
