"""Read a pipeline YAML file into plain data plus a source map (YAML path -> file:line:col)."""

from __future__ import annotations

import hashlib
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..diagnostics import Collector, Location, escaped, shown
from .inputs import read_text
from .limits import MAX_CHARS, scan, within
from .yaml_errors import YamlProblem, describe

YamlPath = tuple  # of str keys and int indexes


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
MERGE = "tag:yaml.org,2002:merge"
_Loader.yaml_implicit_resolvers = _FastLoader.yaml_implicit_resolvers = _RESOLVERS


# What the loader builds: JSON's kinds of value only. A timestamp tag keeps its text (pipec parses timestamps where a
# setting takes one); another tag that makes something else (!!set, !!binary, !!omap) is an error at the value.
_JSON_SCALARS = (str, int, float, bool, type(None))
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_PLAIN_COLLECTIONS = ("tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")
_SURROGATE = re.compile("[\ud800-\udfff]")  # only a double-quoted \\u escape makes one: UTF-8 text cannot hold it
_KIND_NAMES = {"bytes": "bytes (write BYTES as base64 text)"}
_TAGGED = {
    "!!int": "an integer",
    "!!float": "a number",
    "!!bool": "true or false",
    "!!null": "null",
    "!!timestamp": "a date or time (2024-01-31T10:00:00Z)",
    "!!binary": "base64 text",
}


def _short(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")


@dataclass(slots=True)
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
    failed: bool = False  # a value could not be read: the document is not built

    def loc(self, node: yaml.Node) -> Location:
        return Location(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def key(self, node: yaml.Node) -> str | None:
        """A mapping key is always text: a plain `on` or `0123` is the key "on" or "0123", as JSON has it."""
        if node.tag == MERGE:
            self.diags.error("E001", "YAML merge keys (<<) are not supported", self.loc(node), "write the keys out")
        elif not isinstance(node, yaml.ScalarNode):
            self.diags.error(
                "E001",
                "mapping keys must be plain scalars",
                self.loc(node),
                'write the key as text (quote it if it looks like a list or mapping: "[a]": 1)',
            )
        elif not node.value.isprintable() and _SURROGATE.search(node.value):
            self.lone_surrogate(node, _SURROGATE.search(node.value).group())
        else:
            return node.value
        return None

    def build(self, node: yaml.Node, path: tuple) -> Any:
        mark = node.start_mark
        self.values[path] = (mark.line + 1, mark.column + 1)
        if isinstance(node, yaml.CollectionNode):  # a tree: yaml_limits.scan refused a recursive alias
            return self.collection(node, path)
        return self.leaf(node, path)

    def collection(self, node: yaml.CollectionNode, path: tuple) -> Any:
        if node.tag not in _PLAIN_COLLECTIONS:  # !!set, !!omap, !!pairs, a tag of one's own
            self.diags.error(
                "E000",
                f"the tag {_short(node.tag)} makes something other than a mapping or a list",
                self.loc(node),
                f"remove the tag {_short(node.tag)}: pipec reads plain mappings and lists",
            )
            self.failed = True
            return None
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
        return [self.build(n, path + (i,)) for i, n in enumerate(node.value)]

    def leaf(self, node: yaml.ScalarNode, path: tuple) -> Any:
        if node.tag == MERGE:  # `<<` as a value, not a key: its text
            self.plain[path] = node.value
            return node.value
        implicit = node.tag == self.loader.resolve(yaml.ScalarNode, node.value, (True, False))
        if node.style in ("'", '"'):
            self.quoted.add(path)
        elif not node.style and implicit:
            self.plain[path] = node.value  # not quoted, no explicit tag: YAML picked its type from the text
        return self.scalar(node, implicit)

    def scalar(self, node: yaml.ScalarNode, implicit: bool) -> Any:
        """The scalar's value, when it is one of JSON's kinds (text, number, boolean, null); else an error."""
        try:
            value = self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, TypeError, KeyError, AttributeError, OverflowError):
            self.unreadable(node, implicit)
            return None
        if type(value) not in _JSON_SCALARS:
            if node.tag == _TIMESTAMP:  # pipec reads a timestamp from its text, where a setting takes one
                return node.value
            self.unreadable(node, implicit, type(value).__name__)
            return None
        if type(value) is str and not value.isprintable() and _SURROGATE.search(value):
            self.lone_surrogate(node, _SURROGATE.search(value).group())
        return value

    def unreadable(self, node: yaml.ScalarNode, implicit: bool, kind: str = "") -> None:
        """The error for a scalar YAML cannot construct (`kind`: the type it made instead of a JSON value)."""
        tag = _short(node.tag)
        if implicit and node.tag == "tag:yaml.org,2002:int":  # only Python's digit limit refuses a plain integer
            digits = sum(c.isdigit() for c in node.value)
            self.diags.error(
                "E000",
                f"an integer of {digits:,} digits: pipec reads integers of at most "
                f"{sys.get_int_max_str_digits():,} digits",
                self.loc(node),
                "quote it ('...') if it is text; no setting takes a number this large",
            )
        elif node.tag not in self.loader.yaml_constructors:
            self.diags.error(
                "E000",
                f"unknown tag {tag}",
                self.loc(node),
                f"remove the tag {tag}: pipec reads text, numbers, true/false and null by the setting's slot",
            )
        elif kind:
            made = _KIND_NAMES.get(kind, f"a {kind}")
            self.diags.error(
                "E000",
                f"the tag {tag} makes {made}, which no pipeline setting takes",
                self.loc(node),
                "remove the tag: pipec reads text, numbers, true/false, null, lists and mappings",
            )
        else:
            wanted = _TAGGED.get(tag, f"a valid {tag} value")
            self.diags.error(
                "E000",
                f"the tag {tag} needs {wanted}, not {shown(node.value)}",
                self.loc(node),
                f"remove the tag {tag} (a setting's slot decides how pipec reads its value), or write {wanted}",
            )
        self.failed = True

    def lone_surrogate(self, node: yaml.Node, char: str) -> None:
        self.diags.error(
            "E000",
            f"the escape \\u{ord(char):04x} is half of a UTF-16 surrogate pair, not a character",
            self.loc(node),
            "write the character itself, or one \\U escape of 8 hex digits (\\U0001F600, not \\ud83d\\ude00)",
        )
        self.failed = True


def display_name(path: Path, root: Path | None = None) -> str:
    """A path relative to `root` (default: the working directory) when inside it, else absolute; '/'-separated,
    escaped (`diagnostics.escaped`: a newline or an undecodable byte in a file name is shown, never acted on)."""
    path = path.resolve()
    try:
        return escaped(path.relative_to((root or Path.cwd()).resolve()).as_posix())
    except ValueError:
        return escaped(path.as_posix())


def repo_root(start: Path | None = None) -> Path | None:
    """The enclosing git checkout, used to show paths relative to the repository root."""
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return d
    return None


_FAILED = object()  # libyaml could not compose the document
COMPOSE_FIRST_AT_MOST = 50_000  # characters: a file this small is composed before its limits are scanned


def _compose_fast(text: str) -> yaml.Node | object | None:
    """The document's node tree from libyaml, or _FAILED on any error."""
    fast = _FastLoader(text)
    try:
        return fast.get_single_node()
    except (yaml.YAMLError, ValueError):
        return _FAILED
    finally:
        fast.dispose()


def _compose_slow(text: str) -> tuple[yaml.Node | None, YamlProblem | None]:
    """The document's node tree from the pure-Python parser, or what stopped it (yaml_errors.py)."""
    loader = None
    try:
        loader = _Loader(text)  # its reader refuses a character YAML does not allow here
        return loader.get_single_node(), None
    except (yaml.YAMLError, ValueError) as exc:  # ValueError: a \U escape past U+10FFFF
        return None, describe(exc, text, loader and loader.get_mark())
    finally:
        if loader is not None:
            loader.dispose()


def load_text(
    text: str, file: str, diags: Collector, raw: bytes | None = None, repo_file: str | None = None
) -> Document | None:
    """Parse YAML text; syntax errors, duplicate keys, values that cannot be read and crossed limits go to `diags`.

    `file` names the file in diagnostics, `repo_file` in generated code (default `file`); `raw` is the file's
    bytes (for its sha256)."""
    sha = hashlib.sha256(raw if raw is not None else text.encode("utf-8")).hexdigest()
    if len(text) > MAX_CHARS:
        diags.error(
            "E008",
            f"the file holds {len(text):,} characters; pipec reads at most {MAX_CHARS:,}",
            Location(file, 1, 1),
            "split it: one pipeline a file, and large test data in fewer, smaller records",
        )
        return None
    # A small file is composed first (libyaml keeps aliases as shared nodes: no expansion), and a tree within the
    # limits needs no scan; a large one is scanned first, so a hostile file never costs a tree.
    small = len(text) <= COMPOSE_FIRST_AT_MOST
    node = _compose_fast(text) if small else _FAILED
    if node is _FAILED or (node is not None and not within(node)):
        exceeded = scan(text, _FastLoader, _Loader)
        if exceeded:
            diags.error("E008", exceeded.message, Location(file, exceeded.line + 1, exceeded.col + 1), exceeded.hint)
            return None
    if node is _FAILED and not small:
        node = _compose_fast(text)
    if node is _FAILED:
        node, problem = _compose_slow(text)
        if problem:
            diags.error("E000", problem.message, Location(file, problem.line + 1, problem.col + 1), problem.hint)
            return None
    if node is None:
        diags.error(
            "E003",
            "the file is empty",
            Location(file, 1, 1),
            "a pipeline needs at least version, name, source and sink",
        )
        return None
    tree = _Tree(file, _Loader(""), diags)
    data = tree.build(node, ())
    if tree.failed:
        return None
    smap = SourceMap(file, tree.values, tree.keys, frozenset(tree.quoted), tree.plain)
    return Document(file, repo_file or file, text, sha, data, smap)


def load_file(path: Path, diags: Collector, root: Path | None = None) -> Document | None:
    """Read and parse one pipeline file: named relative to the working directory in diagnostics, relative to
    `root` (the repository) in generated code."""
    file = display_name(path)
    read = read_text(path, file, diags)
    if read is None:
        return None
    raw, text = read
    return load_text(text, file, diags, raw, display_name(path, root) if root else file)
