"""The test cases: given, expected and dead-letter records, checked against the source and errors policy."""

from __future__ import annotations

from typing import Any

from ..connectors import SINKS, SOURCES
from ..model import ErrorPolicy, Source, TestCase, TestRecord
from .part import Part


class TestsBuilder(Part):
    """Builds the test cases of one document."""

    def record(self, raw: Any, path: tuple) -> TestRecord:
        locs = {k: self.at(*path, k) for k in raw} if isinstance(raw, dict) else {}
        return TestRecord(dict(raw) if isinstance(raw, dict) else {}, self.at(*path), locs)

    def build(self, source: Source | None, errors: ErrorPolicy) -> tuple[TestCase, ...]:
        out = []
        for i, raw in enumerate(self.data.get("tests") or []):
            path = ("tests", i)
            given = tuple(self.record(r, path + ("given", j)) for j, r in enumerate(raw.get("given", [])))
            expect = raw.get("expect")
            allowed = SOURCES[source.connector].given_fields if source is not None else None
            if allowed is not None:
                for j, g in enumerate(given):
                    extra = sorted(set(g.fields) - allowed)
                    if extra:
                        self.diags.error("E601", f"a {source.connector} source reads only values; given records cannot set {', '.join(extra)}",
                                         g.locs[extra[0]], "files records get topic, partition, offset and timestamp from the files")
            dead = raw.get("dead_letters")
            if dead is not None and errors.tolerance != "all":
                self.diags.error("E602", f"test '{raw['name']}' expects dead letters, but errors.tolerance is not all",
                                 self.at(*path, "dead_letters"), "add `errors: {tolerance: all, ...}`, or use expect_error")
            elif dead is not None and source is not None and not SOURCES[source.connector].dead_letters:
                self.diags.error("E603", f"test '{raw['name']}' expects dead letters, which pipec test matches to given records by "
                                 f"topic, partition and offset; a {source.connector} source's records have none",
                                 self.at(*path, "dead_letters"), "use expect_error for a record that must fail, and expect for the others")
            tables = {k: tuple(self.record(r, path + (k, j)) for j, r in enumerate(raw[k])) if k in raw else None
                      for k in ("expect_table", "table_before")}
            self.check_table_case(raw, path)
            out.append(TestCase(
                raw["name"], self.at(*path), given,
                tuple(self.record(r, path + ("expect", j)) for j, r in enumerate(expect)) if expect is not None else None,
                raw.get("expect_error"),
                tuple(self.record(r, path + ("dead_letters", j)) for j, r in enumerate(dead)) if dead is not None else None,
                tables["expect_table"],
                tables["table_before"] or (),
            ))
        return tuple(out)

    def check_table_case(self, raw: dict, path: tuple) -> None:
        """expect_table and table_before belong to table sinks, whose record tests compare the table itself."""
        sink = self.data.get("sink") or {}
        table = SINKS.get(sink.get("connector")) is not None and SINKS[sink["connector"]].writes_table
        for name in ("expect_table", "table_before"):
            if name in raw and not table:
                self.diags.error("E604", f"{name} applies to table sinks (delta, iceberg); this sink is {sink.get('connector')}",
                                 self.key_at(*path, name), "use expect")
        if table and "expect" in raw:
            self.diags.error("E605", "a table sink's test compares the table: use expect_table (the rows after every given record)",
                             self.key_at(*path, "expect"), "rename expect to expect_table and list the table's rows")
