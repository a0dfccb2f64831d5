"""Read a pipeline YAML file into plain data plus a source map (YAML path -> file:line:col)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from ..diagnostics import Collector, Location
from ..dataclass_lite import field, record
from .limits import scan, within

YamlPath = tuple  # of str keys and int indexes


@record
class SourceMap:
    """Where each value (and each mapping key) of a document stands in its file: `values` and `keys` map a path
    to its (line, column), 1-based; `at` and `key` give Locations."""

    file: str
    values: dict
    keys: dict
    quoted: frozenset = frozenset()  # paths of quoted scalars: their text starts one column after the value
    plain: dict = field(default_factory=dict)  # path -> source text of each plain (unquoted) scalar

    def text_at(self, path: YamlPath, offset: int) -> Location:
        """The location of character `offset` of the scalar string at `path`."""
        loc = self.at(path)
        return Location(loc.file, loc.line, loc.col + offset + (1 if tuple(path) in self.quoted else 0))

    def at(self, path: YamlPath) -> Location:
        """The location of the value at `path`, or of its nearest ancestor."""
        path = tuple(path)
        while path not in self.values and path:
            path = path[:-1]
        line, col = self.values.get(path, (1, 1))
        return Location(self.file, line, col)

    def key(self, path: YamlPath) -> Location:
        """The location of the mapping key that introduces `path` (the value's if there is no key)."""
        found = self.keys.get(tuple(path))
        return Location(self.file, *found) if found else self.at(path)


@record
class Document:
    """One loaded pipeline file."""

    file: str  # as diagnostics show it: relative to the working directory where possible, '/'-separated
    repo_file: str  # as generated code names it: relative to the repository root where possible
    text: str
    sha256: str
    data: Any
    smap: SourceMap


class _Loader(yaml.SafeLoader):
    """Safe loader; timestamps stay strings (the compiler and tests parse them where they mean one)."""


class _FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same loader on libyaml's parser where PyYAML has it (several times faster); syntax errors are
    re-read with the pure-Python parser, whose messages the error fixtures pin."""


# Timestamps stay strings; YAML 1.1's `=` ("value" type, which PyYAML cannot even construct) is the text "=".
_RESOLVERS = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
MERGE = "tag:yaml.org,2002:merge"
_Loader.yaml_implicit_resolvers = _FastLoader.yaml_implicit_resolvers = _RESOLVERS


def _loc(file: str, node: yaml.Node) -> Location:
    return Location(file, node.start_mark.line + 1, node.start_mark.column + 1)


@record(frozen=False)
class _Tree:
    """What `_build` collects besides the data: where each value and key stands, which scalars were quoted,
    the source text of the plain ones."""

    file: str
    loader: yaml.SafeLoader
    diags: Collector
    values: dict = field(default_factory=dict)
    keys: dict = field(default_factory=dict)
    quoted: set = field(default_factory=set)
    plain: dict = field(default_factory=dict)

    def loc(self, node: yaml.Node) -> Location:
        return Location(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def key(self, node: yaml.Node) -> str | None:
        """A mapping key is always text: a plain `on` or `0123` is the key "on" or "0123", as JSON has it."""
        if node.tag == MERGE:
            self.diags.error("E001", "YAML merge keys (<<) are not supported", self.loc(node), "write the keys out")
        elif not isinstance(node, yaml.ScalarNode):
            self.diags.error("E001", "mapping keys must be plain scalars", self.loc(node))
        else:
            return node.value
        return None

    def build(self, node: yaml.Node, path: tuple) -> Any:
        mark = node.start_mark
        self.values[path] = (mark.line + 1, mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            result: dict = {}
            for key_node, value_node in node.value:
                key = self.key(key_node)
                if key is None:
                    continue
                if key in result:
                    self.diags.error(
                        "E002",
                        f"duplicate key '{key}' (first at line {self.keys[path + (key,)][0]})",
                        self.loc(key_node),
                        "remove one of them: YAML would silently keep only the last",
                    )
                    continue
                mark = key_node.start_mark
                self.keys[path + (key,)] = (mark.line + 1, mark.column + 1)
                result[key] = self.build(value_node, path + (key,))
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(n, path + (i,)) for i, n in enumerate(node.value)]
        if node.tag == MERGE:  # `<<` as a value, not a key: its text
            self.plain[path] = node.value
            return node.value
        if node.style in ("'", '"'):
            self.quoted.add(path)
        elif not node.style and node.tag == self.loader.resolve(yaml.ScalarNode, node.value, (True, False)):
            self.plain[path] = node.value  # not quoted, no explicit tag: YAML picked its type from the text
        return self.loader.construct_object(node, deep=True)


def display_name(path: Path, root: Path | None = None) -> str:
    """A path relative to `root` (default: the working directory) when inside it, else absolute; '/'-separated."""
    path = path.resolve()
    try:
        return path.relative_to((root or Path.cwd()).resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def repo_root(start: Path | None = None) -> Path | None:
    """The enclosing git checkout, used to show paths relative to the repository root."""
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return None


_FAILED = object()  # libyaml could not compose the document
COMPOSE_FIRST_AT_MOST = 50_000  # characters: a file this small is composed before its limits are scanned


def _compose_fast(text: str) -> yaml.Node | None | object:
    """The document's node tree from libyaml, or _FAILED on any error."""
    fast = _FastLoader(text)
    try:
        return fast.get_single_node()
    except yaml.YAMLError:
        return _FAILED
    finally:
        fast.dispose()


def _compose_slow(text: str) -> yaml.Node | None:
    """The document's node tree from the pure-Python parser, whose error messages the fixtures pin."""
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def _yaml_error(exc: yaml.YAMLError, file: str, what: str) -> tuple[str, Location]:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or str(exc) or "invalid YAML"
    return f"{what}: {problem}", Location(file, mark.line + 1, mark.column + 1) if mark else Location(file, 1, 1)


def load_text(text: str, file: str, diags: Collector, raw: bytes | None = None, repo_file: str | None = None) -> Document | None:
    """Parse YAML text; syntax errors, duplicate keys and crossed limits go to `diags`.

    `file` names the file in diagnostics, `repo_file` in generated code (default `file`); `raw` is the file's
    bytes (for its sha256)."""
    sha = hashlib.sha256(raw if raw is not None else text.encode("utf-8")).hexdigest()
    # A small file is composed first (libyaml keeps aliases as shared nodes: no expansion), and a tree within the
    # limits needs no scan; a large one is scanned first, so a hostile file never costs a tree.
    small = len(text) <= COMPOSE_FIRST_AT_MOST
    node = _compose_fast(text) if small else _FAILED
    if node is _FAILED or node is not None and not within(node):
        exceeded = scan(text, _FastLoader, _Loader)
        if exceeded:
            diags.error("E008", exceeded.message, Location(file, exceeded.line + 1, exceeded.col + 1), exceeded.hint)
            return None
    try:
        if node is _FAILED and not small:
            node = _compose_fast(text)
        if node is _FAILED:
            node = _compose_slow(text)
    except yaml.YAMLError as exc:
        message, loc = _yaml_error(exc, file, "YAML syntax error")
        diags.error("E000", message, loc, "check indentation and quoting near here")
        return None
    if node is None:
        diags.error("E003", "the file is empty", Location(file, 1, 1), "a pipeline needs at least version, name, source and sink")
        return None
    tree = _Tree(file, _Loader(""), diags)
    try:
        data = tree.build(node, ())
    except yaml.YAMLError as exc:
        message, loc = _yaml_error(exc, file, "YAML error")
        diags.error("E000", message, loc)
        return None
    smap = SourceMap(file, tree.values, tree.keys, frozenset(tree.quoted), tree.plain)
    return Document(file, repo_file or file, text, sha, data, smap)


def load_file(path: Path, diags: Collector, root: Path | None = None) -> Document | None:
    """Read and parse one pipeline file: named relative to the working directory in diagnostics, relative to
    `root` (the repository) in generated code."""
    file = display_name(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        diags.error("E004", f"cannot read the file: {exc}", Location(file, 1, 1))
        return None
    return load_text(text, file, diags, raw, display_name(path, root) if root else file)
