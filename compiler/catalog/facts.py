"""One pipeline's page data, read off its `Compiled`: the record after the source and after each step (what
`pipec explain` prints), column lineage (`tools/lineage.py`), the output contract (`tools/contract.py`), the record
tests, the error policy and the checkpoint. Plain records of strings, for the templates."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from ..connectors import SOURCES
from ..model import Pipeline, Source, TestRecord
from ..resolve.builder import Compiled
from ..shape import Shape
from ..tools.contract import Contract, contract, flat_fields
from ..tools.explain import shape_facts, shape_lines, sink_columns
from ..tools.lineage import column_lineage
from ..transforms import REGISTRY
from ..types.sql import SqlType, StructType


@dataclass(frozen=True, slots=True)
class FieldRow:
    """A field of a key or value: its dotted path, its depth under the top, its type, and how it changed."""

    path: str
    name: str
    depth: int
    type: str
    mark: str = ""  # "added" | "changed" | ""


@dataclass(frozen=True, slots=True)
class Stage:
    """The record after the source (index 0) or after step `index`."""

    index: int
    title: str  # "source (kafka)" or the step's alias
    type_name: str  # the step's type as written; "" for the source
    line: int
    condition: str  # "when [not] PREDICATE", or ""
    words: str  # what the step does, in the generated job's words
    key: tuple[FieldRow, ...]
    value: tuple[FieldRow, ...]
    removed_key: tuple[str, ...]  # key paths the step removed
    removed: tuple[str, ...]  # value paths the step removed
    notes: tuple[str, ...]  # headers, virtual columns, routing, changelog (explain's remaining lines)


@dataclass(frozen=True, slots=True)
class Origin:
    field: str
    how: str  # "identity" | "transformed" | "masked"


@dataclass(frozen=True, slots=True)
class LineageRow:
    output: str
    origins: tuple[Origin, ...]


@dataclass(frozen=True, slots=True)
class RecordTestView:
    name: str
    line: int
    given: tuple[str, ...]  # each record as one line of JSON
    expect: tuple[str, ...] | None
    expect_error: str | None
    dead_letters: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class PipelineFacts:
    pipeline: Pipeline
    stages: tuple[Stage, ...]
    sink_columns: tuple[str, ...]
    lineage: tuple[LineageRow, ...]
    record_inputs: tuple[tuple[str, str], ...]  # (input, FILTER | CONDITIONAL): what decides whether a record goes on
    contract: Contract
    written_key: tuple[FieldRow, ...]
    written_value: tuple[FieldRow, ...]
    tests: tuple[RecordTestView, ...]
    errors: tuple[tuple[str, str], ...]  # (setting, value)
    source_columns: tuple[tuple[str, str, str], ...]  # (name, type, what it holds)


def _short(t: SqlType) -> str:
    return "STRUCT" if isinstance(t, StructType) else t.sql()


Flat = dict[str, SqlType]


def field_rows(
    t: SqlType | None, flat: Flat | None = None, old: Flat | None = None, plain: tuple[FieldRow, ...] | None = None
) -> tuple[FieldRow, ...]:
    """A key or value as rows (a null side as one row), marked against the fields before (`old`) when given;
    `plain` are its rows unmarked, when already made."""
    if t is None:
        return (FieldRow("(null)", "(null)", 0, "always null"),)
    flat = flat if flat is not None else flat_fields(t)
    if plain is None:
        plain = tuple(
            FieldRow(path, path.rsplit(".", 1)[-1] if path != "(whole)" else path, path.count("."), _short(ft))
            for path, ft in flat.items()
        )
    if old is None:
        return plain
    rows = list(plain)
    for i, (path, ft) in enumerate(flat.items()):
        if path not in old:
            rows[i] = replace(plain[i], mark="added")
        elif not isinstance(ft, StructType) and old[path] != ft:
            rows[i] = replace(plain[i], mark="changed")
    return tuple(rows)


def _removed(old: Flat, new: Flat) -> tuple[str, ...]:
    gone = [p for p in old if p not in new]
    return tuple(p for p in gone if not any(p.startswith(q + ".") for q in gone))


def _notes(shape: Shape) -> tuple[str, ...]:
    """explain's lines after key and value (headers, virtual columns, routing, changelog), one string each."""
    lines = shape_lines(shape_facts(shape))[2:]  # key and value are shown as fields
    notes: list[str] = []
    for line in lines:
        if line.startswith(" ") and notes:
            notes[-1] += "; " + line.strip()
        else:
            notes.append(" ".join(line.split()))
    return tuple(notes)


def _condition(step) -> str:
    return f"when {'not ' if step.negate else ''}{step.predicate}" if step.predicate else ""


def stages(compiled: Compiled) -> tuple[Stage, ...]:
    p, shapes = compiled.pipeline, compiled.shapes
    flats: dict[int, Flat] = {}  # by the type's id: a step that leaves a side alone passes on the same type
    plain: dict[int, tuple[FieldRow, ...]] = {}

    def flat(t: SqlType | None) -> Flat:
        if id(t) not in flats:
            flats[id(t)] = flat_fields(t)
        return flats[id(t)]

    def rows(t: SqlType | None, before: SqlType | None = None) -> tuple[FieldRow, ...]:
        if id(t) not in plain:
            plain[id(t)] = field_rows(t, flat(t))
        return plain[id(t)] if before is None or before is t else field_rows(t, flat(t), flat(before), plain[id(t)])

    first = shapes[0]
    out = [
        Stage(
            0,
            f"source ({p.source.connector})",
            "",
            p.source.loc.line,
            "",
            "",
            rows(first.key),
            rows(first.value),
            (),
            (),
            _notes(first),
        )
    ]
    for i, (step, before, after) in enumerate(zip(p.steps, shapes, shapes[1:]), start=1):
        words = REGISTRY.transforms[step.kind].describe(step.config, step.side or "record")
        out.append(
            Stage(
                i,
                step.alias,
                step.type_name,
                step.loc.line,
                _condition(step),
                words or "",
                rows(after.key, before.key),
                rows(after.value, before.value),
                _removed(flat(before.key), flat(after.key)),
                _removed(flat(before.value), flat(after.value)),
                _notes(after),
            )
        )
    return tuple(out)


def lineage(compiled: Compiled) -> tuple[tuple[LineageRow, ...], tuple[tuple[str, str], ...]]:
    fields, record_level = column_lineage(compiled)
    rows = tuple(
        LineageRow(
            out,
            tuple(
                Origin(o.field, "masked" if o.masking else "identity" if o.subtype == "IDENTITY" else "transformed")
                for o in origins
            ),
        )
        for out, origins in fields.items()
    )
    return rows, tuple(sorted(record_level.items()))


def _record_text(rec: TestRecord) -> str:
    return json.dumps(rec.fields, ensure_ascii=False, default=str)


def _records(recs: tuple[TestRecord, ...] | None) -> tuple[str, ...] | None:
    return None if recs is None else tuple(_record_text(r) for r in recs)


def tests(p: Pipeline) -> tuple[RecordTestView, ...]:
    return tuple(
        RecordTestView(
            t.name, t.loc.line, _records(t.given), _records(t.expect), t.expect_error, _records(t.expect_dead_letters)
        )
        for t in p.tests
    )


def errors(p: Pipeline) -> tuple[tuple[str, str], ...]:
    e = p.errors
    rows = [
        (
            "errors.tolerance",
            e.tolerance
            + (
                ": a bad record fails the job"
                if e.tolerance == "none"
                else ": bad records are set aside, the job goes on"
            ),
        )
    ]
    if e.dlq_topic is not None:
        rows.append(("dead letters to topic", e.dlq_topic.raw))
    if e.dlq_path is not None:
        rows.append(("dead letters to folder", e.dlq_path.raw))
    if e.dlq_properties:
        rows.append(("dead-letter producer properties", ", ".join(k for k, _ in e.dlq_properties)))
    if e.tolerance == "all":
        rows.append(("context headers", "yes: each dead letter carries why it failed" if e.context_headers else "no"))
        rows.append(
            (
                "errors.log.enable",
                "yes" + (", with the record's key and value" if e.log_messages else "") if e.log else "no",
            )
        )
    return tuple(rows)


def _column_kind(c) -> str:
    if c.metadata:
        return f"metadata {c.metadata}" + (" (virtual: not written)" if c.virtual else "")
    if c.header:
        return f"header {c.header}"
    if c.headers:
        return "every header"
    return "field"


def source_columns(source: Source) -> tuple[tuple[str, str, str], ...]:
    keyed = set(source.config.key_fields)
    return tuple(
        (c.name, c.type.sql(), _column_kind(c) + (" (key)" if c.name in keyed else "")) for c in source.config.columns
    )


def pipeline_facts(compiled: Compiled) -> PipelineFacts:
    p = compiled.pipeline
    written = contract(compiled)
    rows, record_level = lineage(compiled)
    return PipelineFacts(
        pipeline=p,
        stages=stages(compiled),
        sink_columns=tuple(sink_columns(compiled)),
        lineage=rows,
        record_inputs=record_level,
        contract=written,
        written_key=field_rows(written.key) if written.key is not None else (),
        written_value=field_rows(written.value),
        tests=tests(p),
        errors=errors(p),
        source_columns=source_columns(p.source),
    )


def source_words(p: Pipeline) -> str:
    """The source in a few words: `kafka: a, b`, `files: path`."""
    connector, s = SOURCES[p.source.connector], p.source.config
    if connector.reads_files:
        return f"{connector.name}: {s.path.raw}"
    if connector.reads_table:
        feed = " (change feed)" if s.change_feed else ""
        return f"{connector.name}: {s.path.raw if s.path else s.table}{feed}"
    what = ", ".join(t.raw for t in s.topics) if s.topics else f"topics matching {s.topic_pattern.raw}"
    return f"{connector.name}: {what}"


def sink_words(facts: PipelineFacts) -> str:
    return f"{facts.pipeline.sink.connector}: {facts.contract.destination}"


def search_terms(facts: PipelineFacts, datasets: list[tuple[str, str]]) -> list[list[Any]]:
    """(what, text) pairs the index's search matches: names, description, owner fields, datasets, columns, header
    keys, steps."""
    p = facts.pipeline
    terms: list[tuple[str, str]] = [("pipeline", p.name)]
    if p.description:
        terms.append(("description", p.description))
    terms += [(f"meta {k}", v) for k, v in p.meta]
    terms += datasets
    columns = (
        [r.path for r in facts.stages[0].value]
        + [r.path for r in facts.written_value]
        + [f"key.{r.path}" for r in facts.written_key]
        + [c[0] for c in facts.source_columns]
    )
    terms += [("column", c) for c in dict.fromkeys(columns) if c not in ("(null)", "(whole)")]
    headers = [c.header for c in p.source.config.columns if c.header] + list(facts.contract.headers_added)
    terms += [("header", h) for h in dict.fromkeys(headers)]
    terms += [("step", f"{s.alias} ({s.type_name})") for s in p.steps]
    return [list(t) for t in dict.fromkeys(terms)]
