"""The test cases: given, expected and dead-letter records, checked against the source, the sink and the errors
policy; every name they compare must be one the sink (or the dead-letter queue) writes (test_names.py)."""

from __future__ import annotations

import json
from typing import Any

from ..connectors import SINKS, SOURCES
from ..connectors.base import TestLayout
from ..diagnostics import did_you_mean
from ..model import ErrorPolicy, Sink, Source, TestCase, TestRecord
from ..shape import Shape
from .part import Part
from .test_names import CONTEXT_HEADERS, CONTEXT_PREFIX, FILE_HEADERS, is_bytes, message, sample_type, unwritten

WIRE_FIELDS = ("key", "value")  # compared as the bytes written under `wire: true`


def header_names(headers: Any) -> list[tuple[str, tuple]]:
    """(name, its path below `headers`) of test headers: a mapping, or a list of {key, value}."""
    if isinstance(headers, dict):
        return [(str(k), (k,)) for k in headers]
    if isinstance(headers, list):
        return [(str(h.get("key")), (i, "key")) for i, h in enumerate(headers) if isinstance(h, dict)]
    return []


class TestsBuilder(Part):
    """Builds the test cases of one document."""

    def record(self, raw: Any, path: tuple) -> TestRecord:
        locs = {k: self.at(*path, k) for k in raw} if isinstance(raw, dict) else {}
        return TestRecord(dict(raw) if isinstance(raw, dict) else {}, self.at(*path), locs)

    def records(self, raw: dict, path: tuple, key: str) -> tuple[TestRecord, ...] | None:
        items = raw.get(key)
        return None if items is None else tuple(self.record(r, path + (key, j)) for j, r in enumerate(items))

    def build(
        self, source: Source | None, errors: ErrorPolicy, sink: Sink | None = None, shape: Shape | None = None
    ) -> tuple[TestCase, ...]:
        layout = SINKS[sink.connector].test_layout(sink, shape) if sink is not None and shape is not None else None
        out = []
        for i, raw in enumerate(self.data.get("tests") or []):
            path = ("tests", i)
            given = self.records(raw, path, "given") or ()
            allowed = SOURCES[source.connector].given_fields if source is not None else None
            if allowed is not None:
                for g in given:
                    extra = sorted(set(g.fields) - allowed)
                    if extra:
                        self.diags.error(
                            "E601",
                            f"a {source.connector} source reads only values; given records cannot set {', '.join(extra)}",
                            g.locs[extra[0]],
                            SOURCES[source.connector].given_hint,
                        )
            if "dead_letters" in raw:
                self.renamed(raw, path, given, errors.context_headers)
            dead = self.records(raw, path, "expect_dead_letters")
            if dead is not None and errors.tolerance != "all":
                self.diags.error(
                    "E602",
                    f"test '{raw['name']}' expects dead letters, but errors.tolerance is not all",
                    self.at(*path, "expect_dead_letters"),
                    "add `errors: {tolerance: all, ...}`, or use expect_error",
                )
            self.check_table_case(raw, path)
            tables = {
                k: tuple(self.record(r, path + (k, j)) for j, r in enumerate(raw[k])) if k in raw else None
                for k in ("expect_table", "table_before")
            }
            case = TestCase(
                raw["name"],
                self.at(*path),
                given,
                self.records(raw, path, "expect"),
                raw.get("expect_error"),
                dead,
                bool(raw.get("wire", False)),
                expect_table=tables["expect_table"],
                table_before=tables["table_before"] or (),
            )
            if layout is not None:
                self.check_expect(case, path, layout, sink, shape.virtual)
            if dead is not None and source is not None:
                self.check_dead_letters(case, path, errors, source)
            out.append(case)
        return tuple(out)

    def check_table_case(self, raw: dict, path: tuple) -> None:
        """expect_table and table_before belong to table sinks, whose record tests compare the table itself."""
        sink = self.data.get("sink") or {}
        table = SINKS.get(sink.get("connector")) is not None and SINKS[sink["connector"]].writes_table
        for name in ("expect_table", "table_before"):
            if name in raw and not table:
                self.diags.error(
                    "E604",
                    f"{name} applies to table sinks (delta, iceberg); this sink is {sink.get('connector')}",
                    self.key_at(*path, name),
                    "use expect",
                )

    # ------------------------------------------------------------ what expect names

    def check_expect(
        self, case: TestCase, path: tuple, layout: TestLayout, sink: Sink, virtual: tuple[str, ...]
    ) -> None:
        what = f"test '{case.name}': expect"
        if case.wire and not SINKS[sink.connector].writes_kafka:
            self.diags.error(
                "E611",
                f"test '{case.name}': wire: true compares the bytes of Kafka records, and a {sink.connector} "
                "sink writes rows",
                self.key_at(*path, "wire"),
                "compare decoded values (remove wire: true)",
            )
        for j, rec in enumerate(case.expect or ()):
            at = path + ("expect", j)
            for name, expected in rec.fields.items():
                if name not in layout.fields:
                    self.diags.error(
                        "E610",
                        f"{what} names {name}, which this {sink.connector} sink never writes (it writes "
                        f"{', '.join(layout.fields)})",
                        self.key_at(*at, name),
                        layout.unwritten,
                    )
                elif case.wire and name in WIRE_FIELDS:
                    if not (expected is None or isinstance(expected, str) or is_bytes(expected)):
                        self.diags.error(
                            "E611",
                            f"{what}: with wire: true the {name} is the bytes written, as text",
                            self.at(*at, name),
                            f"write it as the sink writes it, e.g. '{json.dumps(expected, default=str, separators=(',', ':'))}' "
                            "for json, or {base64: ...} for bytes that are not text",
                        )
                elif name in WIRE_FIELDS and layout.fields[name] is None and expected is not None:
                    self.diags.error(
                        "E610",
                        f"{what} names a {name}, and this sink writes every record's {name} as null",
                        self.at(*at, name),
                        f"write {name}: null, or leave it out",
                    )
                elif name in WIRE_FIELDS:
                    for where, there in unwritten(expected, layout.fields[name], (name,)):
                        text, hint = message(what, where, there, "the sink never writes")
                        if where[:1] == ("value",) and len(where) == 2 and where[1] in virtual:
                            hint = f"{where[1]} is a virtual column: the sink drops it (a transform that copies or renames it writes it)"
                        self.diags.error("E610", text, self.key_at(*at, *where), hint)

    # ------------------------------------------------------------ what expect_dead_letters names

    def check_dead_letters(self, case: TestCase, path: tuple, errors: ErrorPolicy, source: Source) -> None:
        """A dead letter is a given record as read, with the context headers where enabled: it names nothing else."""
        what = f"test '{case.name}': expect_dead_letters"
        context = CONTEXT_HEADERS + (FILE_HEADERS if SOURCES[source.connector].reads_files else ())
        own = {name for g in case.given for name, _ in header_names(g.fields.get("headers"))}
        samples = {side: sample_type([g.fields.get(side) for g in case.given]) for side in WIRE_FIELDS}
        for j, rec in enumerate(case.expect_dead_letters or ()):
            at = path + ("expect_dead_letters", j)
            for name, below in header_names(rec.fields.get("headers")):
                where = self.key_at(*at, "headers", *below) if len(below) == 1 else self.at(*at, "headers", *below)
                if name.startswith((CONTEXT_PREFIX, "__pipec.errors.")):
                    if not errors.context_headers:
                        self.diags.error(
                            "E610",
                            f"{what} names the header {name}, and dead letters carry no context headers here",
                            where,
                            "set errors.deadletterqueue.context.headers.enable: true",
                        )
                    elif name not in context:
                        self.diags.error(
                            "E610",
                            f"{what} names the header {name}, which no dead letter carries; the context "
                            f"headers are {', '.join(context)}",
                            where,
                            did_you_mean(name, context) or "name one of the context headers, or leave it out",
                        )
                elif name not in own:
                    self.diags.error(
                        "E610",
                        f"{what} names the header {name}, which no given record has (a dead letter "
                        "carries its record's own headers)",
                        where,
                        did_you_mean(name, own) or "name a header of the given record, or leave it out",
                    )
            for side in WIRE_FIELDS:
                if side in rec.fields:
                    for where, there in unwritten(rec.fields[side], samples[side], (side,)):
                        text, hint = message(
                            what, where, there, "no given record has (a dead letter is its record as read)"
                        )
                        self.diags.error("E610", text, self.key_at(*at, *where), hint)

    def renamed(self, raw: dict, path: tuple, given: tuple[TestRecord, ...], context: bool) -> None:
        """`dead_letters` (entries naming a given record's offset, stage and class) became `expect_dead_letters`
        (the records the queue gets): say how to write the first entry."""
        entries = raw["dead_letters"] or [{}]
        first = entries[0] if isinstance(entries[0], dict) else {}
        offsets: dict[tuple, int] = {}
        record: dict = {}
        for g in given:
            f = g.fields
            where = (f.get("topic"), int(f.get("partition", 0)))
            offset = int(f.get("offset", offsets.get(where, 0)))
            offsets[where] = offset + 1
            if offset == first.get("offset") and where[1] == int(first.get("partition", 0)):
                record = {k: f[k] for k in WIRE_FIELDS if k in f}
                break
        headers = {
            CONTEXT_PREFIX + h: str(first[k])
            for k, h in (("offset", "offset"), ("stage", "stage"), ("class", "class.name"))
            if k in first
        }
        example = json.dumps({**record, **({"headers": headers} if context else {})}, ensure_ascii=False, default=str)
        where = (
            ""
            if context
            else "; the offset, stage and class are __connect.errors.* headers with "
            "errors.deadletterqueue.context.headers.enable: true"
        )
        self.diags.error(
            "E612",
            "dead_letters is now expect_dead_letters, which lists the records the dead-letter queue gets "
            "(key, value and headers, the __connect.errors.* context headers included)",
            self.key_at(*path, "dead_letters"),
            f"rename it and write each entry as its dead letter, e.g. {example}{where} (docs/record-tests.md)",
        )
