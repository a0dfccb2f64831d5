"""Finds where a module tests a registered name (a connector's, a transform's) instead of asking what it names:
a comparison with a name literal (`== "kafka"`, `in ("RegexRouter", "TimestampRouter")`) or a table of names
(`KAFKA_SINKS = ("kafka", "upsert-kafka")`, `{"Cast": ..., "MaskField": ...}`)."""

from __future__ import annotations

import ast


def _is_name(node: ast.AST, names: frozenset[str]) -> bool:
    return isinstance(node, ast.Constant) and node.value in names


def _holds_name(node: ast.AST, names: frozenset[str]) -> bool:
    """A name literal, or a tuple, list or set display holding one."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_name(e, names) for e in node.elts)
    return _is_name(node, names)


def _name_table(node: ast.AST, names: frozenset[str]) -> bool:
    """A tuple, list or set of names only, or a dict whose keys are names only."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_name(e, names) for e in node.elts)
    if isinstance(node, ast.Dict):
        return bool(node.keys) and all(k is not None and _is_name(k, names) for k in node.keys)
    return False


def name_tests(source: str, names: frozenset[str]) -> list[tuple[int, str]]:
    """(line, code) of each comparison with one of `names` or table of them in a module's source, one per line."""
    found: dict[int, str] = {}
    for node in ast.walk(ast.parse(source)):
        compares = isinstance(node, ast.Compare) and any(_holds_name(n, names) for n in (node.left, *node.comparators))
        if compares or _name_table(node, names):
            found.setdefault(node.lineno, ast.unparse(node))
    return sorted(found.items())
