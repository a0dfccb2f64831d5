"""A small YAML writer for generated pipeline files: keeps the order it is given and writes comments, which
PyYAML's dumper cannot. Scalars are written plain when YAML reads them back as the same string, else quoted."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any

import yaml


def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(scalar(v) for v in value) + "]"
    text = str(value)
    plain_ok = text == text.strip() and text != "" and not any(ch in text for ch in ",[]{}#&*!|>'\"%@`\n\t") \
        and not text.startswith(("-", "?", ":")) and ": " not in text and not text.endswith(":")
    if plain_ok:
        try:
            if yaml.safe_load(text) == text:
                return text
        except yaml.YAMLError:
            pass
    return json.dumps(text, ensure_ascii=False)


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
        self.lines += [f"{self.pad}# {line}".rstrip() for line in lines]

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

    def extend(self, other: "YamlWriter") -> None:
        self.lines += other.lines

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"
