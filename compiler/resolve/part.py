"""What every part of the build shares: the document, its diagnostics and locations, and value conversions."""

from __future__ import annotations

from typing import Any

from ..connectors.base import Where
from ..connectors.schema_registry import check_block, registry_of
from ..diagnostics import Collector, Location, did_you_mean
from ..envrefs import Text
from ..load.document import Document
from ..model import Registry


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
                self.diags.error(
                    "E242",
                    f"unknown {where} option '{name}' for this connector",
                    self.key_at(where, "options", name),
                    did_you_mean(name, known)
                    or (f"known: {', '.join(sorted(known))}" if known else "this connector takes no options"),
                )

    def registries(
        self, block: str, raw: dict, formats: dict[str, str | None], topic: Text | None
    ) -> tuple[Registry, ...]:
        """The Schema Registries of a source's or sink's key and value blocks (avro-confluent with `url`), their
        rules checked; `formats`: side -> its format, `topic`: the one topic a default subject is named after."""
        out = []
        for side, fmt in formats.items():
            options = raw.get(side, {})
            check_block(
                options,
                fmt,
                f"{block}.{side}",
                topic is not None,
                self.diags,
                lambda k, side=side: self.key_at(block, side, k),
            )
            found = registry_of(options, f"{block}.{side}", topic, self.at(block, side))
            out += [found] if found else []
        return tuple(out)
