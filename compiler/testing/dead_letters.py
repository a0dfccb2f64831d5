"""`pipec test` under errors.tolerance: all: split the job's rows into the sink's rows and the dead letters as the
dead-letter queue gets them, compare those with a case's `expect_dead_letters` (SPEC section 9), and check the
job's own counts against what the test saw (section 8)."""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

from ..connectors.kafka import value_columns, wire_name
from ..model import TestCase
from ..record_errors import ERROR, HIDDEN, RAW
from ..resolve.builder import Compiled
from ..resolve.test_names import CONTEXT_PREFIX
from .compare import headers_list, matches, show_record
from .kafka_rows import encode_payload

LETTER_HEADERS = "__pipec_test_letter_headers"  # a dead letter's headers, from the job's own dead_letter_headers
CONTEXT_PREFIXES = (CONTEXT_PREFIX, "__pipec.errors.")
MESSAGE = CONTEXT_PREFIX + "exception.message"  # compared as a substring
COUNTS = re.compile(r"in=(\d+) written=(\d+) filtered=(\d+) superseded=(\d+) dead_lettered=(\d+)")


def with_letter_headers(job: ModuleType, rows):
    """The job's rows with each dead letter's headers as its queue gets them (the record's own, then the context
    headers where enabled): the job's own `dead_letter_headers`, before anything is collected."""
    if not hasattr(job, "dead_letter_headers") or ERROR not in rows.columns:
        return rows
    from pyspark.sql import functions as F

    return rows.withColumn(LETTER_HEADERS, F.when(F.col(ERROR).isNotNull(), job.dead_letter_headers()))


def split_rows(rows: list) -> tuple[list, list[dict]]:
    """(the sink's rows without the hidden columns, the dead letters: {key, value, headers} as the queue gets them)."""
    from pyspark.sql import Row

    good, dead = [], []
    for row in rows:
        data = row.asDict(recursive=False)
        if ERROR not in data:
            good.append(row)
        elif data[ERROR] is not None:
            raw = data[RAW]
            headers = data.get(LETTER_HEADERS, raw["headers"])
            dead.append(
                {
                    "key": raw["key"],
                    "value": raw["value"],
                    "headers": [
                        (h["key"], bytes(h["value"]) if h["value"] is not None else None) for h in headers or []
                    ],
                }
            )
        else:
            good.append(Row(**{k: v for k, v in data.items() if k not in HIDDEN + (LETTER_HEADERS,)}))
    return good, dead


def _context(name: str) -> bool:
    return name.startswith(CONTEXT_PREFIXES)


def _headers_match(expected: Any, actual: list[tuple[str, bytes | None]]) -> bool:
    """The record's own headers exactly, in order; the context headers named (the message as a substring)."""
    want = headers_list(expected) or []
    if [h for h in want if not _context(h[0])] != [h for h in actual if not _context(h[0])]:
        return False
    context = {k: v for k, v in actual if _context(k)}
    for key, value in want:
        if not _context(key):
            continue
        if key not in context:
            return False
        got = context[key]
        if key == MESSAGE and value is not None and got is not None:
            if value.decode("utf-8") not in got.decode("utf-8", "replace"):
                return False
        elif got != value:
            return False
    return True


def _letter_matches(expected: dict, letter: dict, encode) -> bool:
    for name, want in expected.items():
        if name == "headers":
            if not _headers_match(want, letter["headers"]):
                return False
        elif not matches(encode(name, want), letter[name], whole=True):
            return False
    return True


def check_dead_letters(compiled: Compiled, case: TestCase, dead: list[dict]) -> list[str]:
    """Lines saying how the dead letters differ from the case's `expect_dead_letters` (empty when they match); a case
    without it must have none."""
    source = compiled.pipeline.source
    names = {
        "key": [wire_name(source, k) for k in source.config.key_fields],
        "value": [c.name for c in value_columns(source)],
    }
    formats = {"key": source.config.key_format, "value": source.config.format}

    def encode(name: str, value: Any) -> Any:
        """An expected key or value as the bytes its given record had (the source's formats, as `given`)."""
        if value is None:
            return None
        import base64

        return {"base64": base64.b64encode(encode_payload(value, formats[name], names[name])).decode()}

    expected = case.expect_dead_letters or ()
    used: set[int] = set()
    lines = []
    for rec in expected:
        hit = next(
            (i for i, letter in enumerate(dead) if i not in used and _letter_matches(rec.fields, letter, encode)), None
        )
        if hit is None:
            lines.append(f"  expected dead letter (line {rec.loc.line}), not sent: {show_record(rec.fields)}")
        else:
            used.add(hit)
    for i, letter in enumerate(dead):
        if i not in used:
            lines.append(f"  dead letter, not expected:     {show_record(letter)}")
    return lines


def count_lines(lines: list[str]) -> dict[str, int] | None:
    """The job's count lines summed over its (micro-)batches; None when a batch had no counts."""
    total = dict.fromkeys(("in", "written", "filtered", "superseded", "dead_lettered"), 0)
    for line in lines:
        found = COUNTS.search(line)
        if found is None:
            return None
        for name, number in zip(total, found.groups()):
            total[name] += int(number)
    return total


def check_counts(lines: list[str], written: int | None, dead: int) -> list[str]:
    """Section 8's accounting, from the job's own counts: in = written + filtered + superseded + dead_lettered, with
    the records the test saw written (None: a table's, which the test sees as the table) and dead-lettered."""
    counts = count_lines(lines)
    if counts is None or not lines:
        return [f"  the job gave no counts ({'; '.join(lines) or 'no count line'})"]
    said = " ".join(f"{k}={v}" for k, v in counts.items())
    out = []
    if counts["in"] != counts["written"] + counts["filtered"] + counts["superseded"] + counts["dead_lettered"]:
        out.append(f"  counts: in is not written + filtered + superseded + dead_lettered ({said})")
    if counts["written"] != (counts["written"] if written is None else written) or counts["dead_lettered"] != dead:
        out.append(f"  counts: the job counted {said}, and the test saw {written} written and {dead} dead-lettered")
    return out
