"""Read a pipeline YAML file into plain data plus a source map (YAML path -> file:line:col)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Collector, Location

YamlPath = tuple  # of str keys and int indexes


@dataclass(frozen=True)
class SourceMap:
    """Where each value (and each mapping key) of a document stands in its file."""

    file: str
    values: dict
    keys: dict
    quoted: frozenset = frozenset()  # paths of quoted scalars: their text starts one column after the value

    def text_at(self, path: YamlPath, offset: int) -> Location:
        """The location of character `offset` of the scalar string at `path`."""
        loc = self.at(path)
        return Location(loc.file, loc.line, loc.col + offset + (1 if tuple(path) in self.quoted else 0))

    def at(self, path: YamlPath) -> Location:
        """The location of the value at `path`, or of its nearest ancestor."""
        path = tuple(path)
        while path not in self.values and path:
            path = path[:-1]
        return self.values.get(path, Location(self.file, 1, 1))

    def key(self, path: YamlPath) -> Location:
        """The location of the mapping key that introduces `path` (the value's if there is no key)."""
        return self.keys.get(tuple(path)) or self.at(path)


@dataclass(frozen=True)
class Document:
    """One loaded pipeline file."""

    file: str  # as shown to users: relative to the repository root where possible, '/'-separated
    text: str
    sha256: str
    data: Any
    smap: SourceMap


class _Loader(yaml.SafeLoader):
    """Safe loader; timestamps stay strings (the compiler and tests parse them where they mean one)."""


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same loader on libyaml's parser where PyYAML has it (several times faster); syntax errors are
    re-read with the pure-Python parser, whose messages the error fixtures pin."""


_RESOLVERS = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.yaml_implicit_resolvers = _FastLoader.yaml_implicit_resolvers = _RESOLVERS


def _loc(file: str, node: yaml.Node) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


def _build(node: yaml.Node, path: tuple, file: str, loader: _Loader, values: dict, keys: dict, diags: Collector, quoted: set):
    values[path] = _loc(file, node)
    if isinstance(node, yaml.MappingNode):
        result: dict = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                diags.error("E001", "YAML merge keys (<<) are not supported", _loc(file, key_node), "write the keys out")
                continue
            try:
                key = loader.construct_object(key_node, deep=True)
            except yaml.YAMLError as exc:
                diags.error("E001", f"bad mapping key: {getattr(exc, 'problem', exc)}", _loc(file, key_node))
                continue
            if not isinstance(key, (str, int, float, bool)) or key is None:
                diags.error("E001", "mapping keys must be plain scalars", _loc(file, key_node))
                continue
            key = str(key) if not isinstance(key, str) else key
            if key in result:
                diags.error(
                    "E002",
                    f"duplicate key '{key}' (first at line {keys[path + (key,)].line})",
                    _loc(file, key_node),
                    "remove one of them: YAML would silently keep only the last",
                )
                continue
            keys[path + (key,)] = _loc(file, key_node)
            result[key] = _build(value_node, path + (key,), file, loader, values, keys, diags, quoted)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(n, path + (i,), file, loader, values, keys, diags, quoted) for i, n in enumerate(node.value)]
    if node.style in ("'", '"'):
        quoted.add(path)
    return loader.construct_object(node, deep=True)


def display_name(path: Path, root: Path | None = None) -> str:
    """The path users see: relative to `root` (or the working directory) when inside it, '/'-separated."""
    path = path.resolve()
    for base in (root, Path.cwd()):
        if base is not None:
            try:
                return path.relative_to(base.resolve()).as_posix()
            except ValueError:
                pass
    return path.as_posix()


def _compose(text: str) -> yaml.Node | None:
    """The document's node tree: libyaml first; on any error the pure-Python parser, for its messages."""
    fast = _FastLoader(text)
    try:
        return fast.get_single_node()
    except yaml.YAMLError:
        pass
    finally:
        fast.dispose()
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def load_text(text: str, file: str, diags: Collector, raw: bytes | None = None) -> Document | None:
    """Parse YAML text; syntax errors and duplicate keys go to `diags`. `raw` is the file's bytes (for its sha256)."""
    sha = hashlib.sha256(raw if raw is not None else text.encode("utf-8")).hexdigest()
    try:
        node = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file, 1, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        diags.error("E000", f"YAML syntax error: {problem}", loc, "check indentation and quoting near here")
        return None
    except yaml.YAMLError as exc:
        diags.error("E000", f"YAML syntax error: {exc}", Location(file, 1, 1))
        return None
    if node is None:
        diags.error("E003", "the file is empty", Location(file, 1, 1), "a pipeline needs at least version, name, source and sink")
        return None
    values: dict = {}
    keys: dict = {}
    quoted: set = set()
    try:
        data = _build(node, (), file, _Loader(""), values, keys, diags, quoted)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        loc = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file, 1, 1)
        diags.error("E000", f"YAML error: {getattr(exc, 'problem', None) or exc}", loc)
        return None
    return Document(file, text, sha, data, SourceMap(file, values, keys, frozenset(quoted)))


def load_file(path: Path, diags: Collector, root: Path | None = None) -> Document | None:
    """Read and parse one pipeline file."""
    file = display_name(path, root)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        diags.error("E004", f"cannot read the file: {exc}", Location(file, 1, 1))
        return None
    return load_text(text, file, diags, raw)
