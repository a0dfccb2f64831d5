"""What every part of the build shares: the document, its diagnostics and locations, and value conversions."""

from __future__ import annotations

from typing import Any

from ..connectors.base import Where
from ..diagnostics import Collector, Location, did_you_mean
from ..envrefs import Text
from ..loader import Document


def text(value: Any) -> Text | None:
    return None if value is None else Text(str(value))


def integer(value: Any) -> int | None:
    return None if value is None else int(value)


def options(raw: dict | None) -> tuple[tuple[str, str], ...]:
    return tuple((k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in (raw or {}).items())


class Part:
    """One part of the build over one validated document; it keeps no state of its own."""

    def __init__(self, doc: Document, diags: Collector):
        self.doc, self.diags, self.data = doc, diags, doc.data

    @property
    def streaming(self) -> bool:
        return self.data.get("mode", "streaming") == "streaming"

    def at(self, *path) -> Location:
        return self.doc.smap.at(path)

    def key_at(self, *path) -> Location:
        return self.doc.smap.key(path)

    def where(self, block: str) -> Where:
        return Where(self.diags, self.doc.smap, block, self.streaming)

    def check_options(self, where: str, options: tuple[tuple[str, str], ...], known: frozenset[str]) -> None:
        """`options:` may set only the Spark options the compiler knows for this connector."""
        for name, _ in options:
            if name not in known:
                self.diags.error("E242", f"unknown {where} option '{name}' for this connector", self.key_at(where, "options", name),
                                 did_you_mean(name, known) or (f"known: {', '.join(sorted(known))}" if known else "this connector takes no options"))
