"""Read a Kafka Connect connector config with the location of every key: a `.properties` file (Java's format:
`=`, `:` or whitespace separators, `#`/`!` comments, backslash continuations and escapes), the REST API's JSON
(`{"name": ..., "config": {...}}`) or a bare JSON config. Comments directly above a key belong to it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Location


class ConfigSyntaxError(Exception):
    def __init__(self, message: str, loc: Location):
        super().__init__(message)
        self.message, self.loc = message, loc


@dataclass(frozen=True, slots=True)
class Entry:
    key: str
    value: str
    loc: Location  # of the key
    pointer: str = ""  # JSON pointer, for JSON configs
    comments: tuple[str, ...] = ()

    def where(self) -> str:
        return f"{self.loc}" + (f" ({self.pointer})" if self.pointer else "")


@dataclass(slots=True)
class ConnectorConfig:
    file: str
    name: str
    entries: dict[str, Entry] = field(default_factory=dict)
    header: tuple[str, ...] = ()  # comments at the top of a properties file, before the first key's own

    def get(self, key: str, default: str | None = None) -> str | None:
        e = self.entries.get(key)
        return e.value.strip() if e is not None else default

    def loc(self, key: str) -> Location:
        e = self.entries.get(key)
        return e.loc if e else Location(self.file, 1, 1)

    def under(self, prefix: str) -> list[Entry]:
        """Entries whose key starts with `prefix`, in file order."""
        return [e for k, e in self.entries.items() if k.startswith(prefix)]


SECRET = re.compile(r"password|secret|credential|jaas|token|access[._-]?key", re.I)


def hide_secret(key: str, value: str) -> str:
    """Secrets never land in YAML: a password-like setting (a password, token, credential, access key, or a key
    that is not a converter's or a record's) is shown as [hidden]."""
    keyish = key.lower().endswith("key") and not key.endswith(("converter", ".key"))
    return "[hidden]" if SECRET.search(key) or keyish else value


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[i + 2 : i + 6] or ""):
                out.append(chr(int(text[i + 2 : i + 6], 16)))
                i += 6
                continue
            out.append(_ESCAPES.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _split_key(line: str) -> tuple[str, str]:
    """Java Properties: the key ends at the first unescaped '=', ':' or whitespace."""
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] in "=: \t\f":
            break
        i += 1
    key, rest = line[:i], line[i:]
    rest = rest.lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return key, rest


def read_properties(path: Path, text: str) -> ConnectorConfig:
    config = ConnectorConfig(str(path), path.stem)
    lines = text.splitlines()
    comments: list[str] = []
    i = 0
    while i < len(lines):
        raw = lines[i]
        stripped = raw.lstrip(" \t\f")
        line_no, col = i + 1, len(raw) - len(stripped) + 1
        i += 1
        if not stripped:
            if comments and not config.entries and not config.header:
                config.header, comments = tuple(comments), []
            comments = [] if config.entries or config.header else comments
            continue
        if stripped[0] in "#!":
            comments.append(stripped[1:].strip())
            continue
        logical = stripped
        while re.search(r"(?<!\\)(\\\\)*\\$", logical) and i <= len(lines):
            logical = logical[:-1] + (lines[i].lstrip(" \t\f") if i < len(lines) else "")
            i += 1
        key, value = _split_key(logical)
        config.entries[_unescape(key)] = Entry(
            _unescape(key), _unescape(value), Location(str(path), line_no, col), "", tuple(comments)
        )
        comments = []
    if "name" in config.entries:
        entry = config.entries.pop("name")
        config.name, config.header = entry.value.strip(), config.header + entry.comments
    return config


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _key_positions(text: str) -> list[tuple[int, int]]:
    """(line, col) of every object key, in document order (each string followed by ':' is a key)."""
    out = []
    for m in _STRING.finditer(text):
        after = text[m.end() : m.end() + 40].lstrip()
        if after.startswith(":"):
            line = text.count("\n", 0, m.start()) + 1
            col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
            out.append((line, col))
    return out


def read_json(path: Path, text: str) -> ConnectorConfig:
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: pairs)
    except json.JSONDecodeError as exc:
        raise ConfigSyntaxError(f"not valid JSON: {exc.msg}", Location(str(path), exc.lineno, exc.colno)) from exc
    if not isinstance(data, list):
        raise ConfigSyntaxError("a connector config is a JSON object", Location(str(path), 1, 1))
    positions = iter(_key_positions(text))
    order: list[tuple[str, str, str, Location]] = []  # (pointer, key, value, loc) of every key, in document order

    def walk(pairs, pointer: str) -> None:
        for key, value in pairs:
            line, col = next(positions, (1, 1))
            here = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
            order.append((pointer, key, value, Location(str(path), line, col)))
            if isinstance(value, list) and all(isinstance(v, tuple) and len(v) == 2 for v in value) and value:
                walk(value, here)

    walk(data, "")
    top = {k: (v, loc) for p, k, v, loc in order if p == ""}
    inner = "/config" if "config" in top and isinstance(top["config"][0], list) else ""
    config = ConnectorConfig(str(path), str(top["name"][0]) if "name" in top and inner else path.stem)
    for pointer, key, value, loc in order:
        if pointer != inner or (not inner and key == "name"):
            if not inner and key == "name":
                config.name = str(value)
            continue
        if isinstance(value, (list, dict)):
            raise ConfigSyntaxError(f"config value '{key}' must be a string, not an object or a list", loc)
        text_value = "" if value is None else (str(value).lower() if isinstance(value, bool) else str(value))
        config.entries[key] = Entry(key, text_value, loc, f"{inner}/{key.replace('~', '~0').replace('/', '~1')}")
    if inner and "name" in config.entries:
        config.entries.pop("name")
    return config


def read_config(path: Path) -> ConnectorConfig:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json" or text.lstrip().startswith("{"):
        return read_json(path, text)
    return read_properties(path, text)
