"""The test cases: given, expected and dead-letter records, checked against the source and errors policy."""

from __future__ import annotations

from typing import Any

from ..connectors import SOURCES
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
            out.append(TestCase(
                raw["name"], self.at(*path), given,
                tuple(self.record(r, path + ("expect", j)) for j, r in enumerate(expect)) if expect is not None else None,
                raw.get("expect_error"),
                tuple(self.record(r, path + ("dead_letters", j)) for j, r in enumerate(dead)) if dead is not None else None,
            ))
        return tuple(out)
