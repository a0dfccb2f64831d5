"""A small YAML writer for generated pipeline files: keeps the order it is given and writes comments, which
PyYAML's dumper cannot. Scalars are written plain when YAML reads them back as the same string, else quoted."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any

import yaml


def _printable(ch: str) -> bool:
    """Characters YAML takes as they are in any scalar (no line breaks, no C1 controls, no BOM or separators)."""
    code = ord(ch)
    return (
        0x20 <= code <= 0x7E
        or (0xA0 <= code <= 0xFFFD and not 0xD800 <= code <= 0xDFFF and code not in (0x2028, 0x2029, 0xFEFF))
        or code > 0xFFFF
    )


def _quoted(text: str) -> str:
    """A double-quoted scalar (JSON's escapes are YAML's), escaping whatever YAML would not read back as written."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    return '"' + "".join(ch if _printable(ch) else f"\\u{ord(ch):04x}" for ch in body) + '"'


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    text = str(value)
    plain_ok = (
        text == text.strip()
        and text != ""
        and all(_printable(ch) for ch in text)
        and not any(ch in text for ch in ",[]{}#&*!|>'\"%@`\\")
        and not text.startswith(("-", "?", ":"))
        and ": " not in text
        and not text.endswith(":")
    )
    if plain_ok:
        try:
            if yaml.safe_load(text) == text:
                return text
        except yaml.YAMLError:
            pass
    return _quoted(text)


def _flow(pairs: list[tuple[str, Any]]) -> str:
    return "{" + ", ".join(f"{scalar(k)}: {scalar(v)}" for k, v in pairs) + "}"


class YamlWriter:
    def __init__(self, level: int = 0):
        self.lines: list[str] = []
        self.level = level

    @property
    def pad(self) -> str:
        return "  " * self.level

    @contextmanager
    def indent(self):
        self.level += 1
        try:
            yield
        finally:
            self.level -= 1

    def comment(self, *lines: str) -> None:
        """Comment lines; a character that could end the comment (a line break) is written as its escape."""
        safe = ["".join(ch if _printable(ch) or ch == "\t" else f"\\u{ord(ch):04x}" for ch in line) for line in lines]
        self.lines += [f"{self.pad}# {line}".rstrip() for line in safe]

    def key(self, key: str) -> None:
        self.lines.append(f"{self.pad}{scalar(key)}:")

    def pair(self, key: str, value: Any) -> None:
        self.lines.append(f"{self.pad}{scalar(key)}: {scalar(value)}")

    def flow(self, key: str, pairs: list[tuple[str, Any]]) -> None:
        self.lines.append(f"{self.pad}{scalar(key)}: {_flow(pairs)}")

    def flow_list(self, key: str, items: list[Any]) -> None:
        self.lines.append(f"{self.pad}{scalar(key)}: {scalar(list(items))}")

    def mapping(self, key: str, pairs: list[tuple[str, Any]]) -> None:
        self.key(key)
        with self.indent():
            for k, v in pairs:
                self.pair(k, v)

    def list_flow(self, pairs: list[tuple[str, Any]]) -> None:
        self.lines.append(f"{self.pad}- {_flow(pairs)}")

    item_comment = comment

    def item(self, pairs: list[tuple[str, Any]]) -> None:
        for i, (k, v) in enumerate(pairs):
            self.lines.append(f"{self.pad}{'- ' if i == 0 else '  '}{scalar(k)}: {scalar(v)}")
        self.items = getattr(self, "items", 0) + 1

    def extend(self, other: YamlWriter) -> None:
        self.lines += other.lines

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
