"""The datasets of `pipec graph`'s graph (topics, topic patterns, routed topics, folders, and any kind a sink adds
later, such as tables): who writes each, who reads it, and the columns each writer produces."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

from ..tools.graph import Graph
from .facts import FieldRow, PipelineFacts

KIND_WORDS = {
    "topic": "topic",
    "env-topic": "topic (its name from the environment)",
    "pattern": "topic pattern",
    "routed": "topics a router step names",
    "folder": "folder",
}


def kind_words(kind: str) -> str:
    return KIND_WORDS.get(kind, kind)


@dataclass(frozen=True, slots=True)
class Use:
    """One pipeline writing or reading a dataset: how (the graph's edge label), and the columns written or read."""

    pipeline: str
    how: str  # "" | "dead letters" | "same topic" | ...
    formats: str
    key: tuple[FieldRow, ...] = ()
    value: tuple[FieldRow, ...] = ()
    columns: tuple[tuple[str, str, str], ...] = ()  # a reader's declared source columns


@dataclass(slots=True)
class Dataset:
    id: str  # the graph's node id
    kind: str
    label: str
    page: str  # its file under datasets/
    writers: list[Use] = field(default_factory=list)
    readers: list[Use] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)  # ids of patterns this topic matches, or topics a pattern matches

    @property
    def kind_words(self) -> str:
        return kind_words(self.kind)

    @property
    def terms(self) -> str:
        """What the datasets page's filter matches, as JSON: the name, its pipelines and the columns written."""
        terms = [[self.kind_words.split(" ")[0], self.label]]
        terms += [["writer", u.pipeline] for u in self.writers] + [["reader", u.pipeline] for u in self.readers]
        columns = dict.fromkeys(r.path for u in self.writers for r in u.value if r.path not in ("(null)", "(whole)"))
        return json.dumps(terms + [["column", c] for c in columns], ensure_ascii=False)


def page_name(kind: str, label: str) -> str:
    """A file name from the label's letters and digits, made unique by a digest of kind and label."""
    slug = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-")[:48] or "dataset"
    digest = hashlib.sha256(kind.encode() + b"\0" + label.encode()).hexdigest()[:8]
    return f"{kind}-{slug}-{digest}.html"


def _formats(key: str | None, value: str | None) -> str:
    return ", ".join(f"{side} {fmt}" for side, fmt in (("key", key), ("value", value)) if fmt)


def _writer(facts: PipelineFacts, how: str) -> Use:
    if how == "dead letters":
        return Use(facts.pipeline.name, how, "the records that failed, as they were read")
    c = facts.contract
    return Use(facts.pipeline.name, how, _formats(c.key_format, c.value_format), facts.written_key, facts.written_value)


def _reader(facts: PipelineFacts, how: str) -> Use:
    s = facts.pipeline.source.config
    return Use(
        facts.pipeline.name,
        how,
        _formats(s.key_format if s.key_format != "none" else None, s.format),
        columns=facts.source_columns,
    )


def datasets(graph: Graph, facts: dict[str, PipelineFacts]) -> dict[str, Dataset]:
    """Node id -> dataset, for every node of the graph that is not a pipeline, in the graph's order."""
    found = {
        n.id: Dataset(n.id, n.kind, n.label, page_name(n.kind, n.label))
        for n in graph.nodes.values()
        if n.kind != "pipeline"
    }
    for a, b, how in graph.edges:
        if a in found and b in found:
            found[a].matches.append(b)
            found[b].matches.append(a)
        elif b in found:
            found[b].writers.append(_writer(facts[graph.nodes[a].label], how))
        elif a in found:
            found[a].readers.append(_reader(facts[graph.nodes[b].label], how))
    return found
