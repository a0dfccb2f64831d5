"""`pipec test` for errors.tolerance: all: split the job's rows into sink rows and dead letters, and check the
dead letters against a case's `dead_letters:` (SPEC section 9)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from ..resolve.builder import Compiled
from ..model import TestCase
from ..record_errors import ERROR, HIDDEN, RAW
from ..transforms.base import PACKAGE
from .kafka_rows import kafka_rows, resolve

RAW_FIELDS = ("key", "value", "headers")


def split_rows(rows: list) -> tuple[list, list]:
    """(the sink's rows without the hidden columns, the dead-letter rows)."""
    from pyspark.sql import Row

    good, dead = [], []
    for row in rows:
        data = row.asDict(recursive=False)
        if ERROR not in data:
            good.append(row)
        elif data[ERROR] is not None:
            dead.append(row)
        else:
            good.append(Row(**{k: v for k, v in data.items() if k not in HIDDEN}))
    return good, dead


def _position(topic: str, partition: int, offset: int) -> str:
    return f"{topic}/{partition}@{offset}"


def _class(name: str) -> str:
    return name if "." in name else PACKAGE + name


def check_dead_letters(compiled: Compiled, case: TestCase, dead: list) -> list[str]:
    """Lines saying how the dead letters differ from the case's `dead_letters` (empty when they match)."""
    source = compiled.pipeline.source
    first_topic = resolve(source.topics[0].raw, dict(os.environ)) if source.topics else None
    given = {}
    for _, row in kafka_rows(source, list(case.given)):
        raw = dict(zip(("key", "value", "topic", "partition", "offset", "timestamp", "timestampType", "headers"), row))
        given[_position(raw["topic"], raw["partition"], raw["offset"])] = raw
    actual: dict[str, Any] = {}
    lines = []
    for row in dead:
        raw, error = row[RAW].asDict(), row[ERROR].asDict()
        where = _position(raw["topic"], raw["partition"], raw["offset"])
        actual[where] = error
        original = given.get(where)
        if original is not None:
            for name in RAW_FIELDS:
                got = [tuple(h) for h in raw[name]] if name == "headers" and raw[name] is not None else raw[name]
                want = [tuple(h) for h in original[name]] if name == "headers" and original[name] is not None else original[name]
                if got != want:
                    lines.append(f"  dead letter {where}: its {name} is not the given record's ({got!r} != {want!r})")
    expected = Counter()
    for rec in case.dead_letters or ():
        f = rec.fields
        where = _position(f.get("topic", first_topic), int(f.get("partition", 0)), int(f["offset"]))
        expected[where] += 1
        error = actual.get(where)
        if error is None:
            lines.append(f"  line {rec.loc.line}: expected a dead letter for {where}; dead letters: {', '.join(sorted(actual)) or 'none'}")
            continue
        if "stage" in f and f["stage"] != error["stage"]:
            lines.append(f"  line {rec.loc.line}: dead letter {where} failed in {error['stage']}, not {f['stage']}: {error['message']}")
        if "class" in f and _class(str(f["class"])) != error["class"]:
            lines.append(f"  line {rec.loc.line}: dead letter {where} failed in {error['class']}, not {_class(str(f['class']))}: {error['message']}")
    for where, error in sorted(actual.items()):
        if where not in expected:
            lines.append(f"  unexpected dead letter {where}: {error['stage']} {error['message']}")
    if len(dead) != len(actual):
        lines.append(f"  {len(dead)} dead letters for {len(actual)} records: a record was dead-lettered twice")
    return lines
