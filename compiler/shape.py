"""The record shape the compiler tracks through the chain (SPEC section 5)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .types.sql import SqlType, StructType


@dataclass(frozen=True, slots=True)
class Shape:
    """Key, value and envelope facts known at one point of the chain.

    `key`/`value` are None when always null (no key format); a struct value may still be null per
    record (a tombstone). `virtual` names top-level value fields that are virtual metadata columns,
    dropped at the sink unless a transform turned them into ordinary fields.
    """

    key: SqlType | None
    value: SqlType | None
    virtual: frozenset[str] = frozenset()
    routed: bool = False
    changelog: bool = False
    tombstones: bool = False  # each record carries changelog.TOMBSTONE (an upsert-kafka changelog)
    persisted: tuple[tuple[str, str], ...] = ()  # (metadata key, value field) written back by a Kafka sink
    schema_names: tuple[
        tuple[str, str | None, int | None], ...
    ] = ()  # (side, schema name, version) from SetSchemaMetadata
    headers_added: tuple[str, ...] = ()  # header keys steps have added (InsertHeader, HeaderFrom), in order
    headers_dropped: tuple[str, ...] = ()  # header keys DropHeaders removed

    def with_headers(self, added: tuple[str, ...] = (), dropped: tuple[str, ...] = ()) -> Shape:
        """After a step that appends headers with the keys `added` or removes every header keyed `dropped`."""
        kept = tuple(k for k in self.headers_added if k not in dropped)
        return replace(
            self,
            headers_added=tuple(dict.fromkeys(kept + added)),
            headers_dropped=tuple(dict.fromkeys(self.headers_dropped + dropped)),
        )

    def side(self, side: str) -> SqlType | None:
        return self.key if side == "key" else self.value

    def with_side(self, side: str, new: SqlType | None) -> Shape:
        if side == "key":
            return replace(self, key=new)
        names = frozenset(new.names()) if isinstance(new, StructType) else frozenset()
        persisted = tuple((k, f) for k, f in self.persisted if f in names)
        return replace(self, value=new, virtual=self.virtual & names, persisted=persisted)


def kind_words(t: SqlType | None) -> str:
    """What a key or value is, for messages: `a primitive (BIGINT)`, or `always null` for a side without a type."""
    if t is None:
        return "always null (a step such as Drop set it to null)"
    return "a struct" if isinstance(t, StructType) else f"a primitive ({t.sql()})"
