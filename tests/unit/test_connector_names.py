"""Connector knowledge lives in compiler/connectors/: no module outside it tests a connector's name.

Outside `connectors/` a connector is asked (SOURCES[name].reads_files, SINKS[name].writes_kafka, ...), never
compared by name: a comparison with a name literal (`== "kafka"`, `in ("kafka", "upsert-kafka")`) or a table of
names (`KAFKA_SINKS = ("kafka", "upsert-kafka")`, `{"files": ..., "kafka": ...}`) is reported with its place.
"""

from __future__ import annotations

from pathlib import Path

from name_tests import name_tests as find_name_tests
from pipec.connectors import SINKS, SOURCES

COMPILER = Path(__file__).resolve().parents[2] / "compiler"
NAMES = frozenset(SOURCES) | frozenset(SINKS)


def name_tests(source: str) -> list[tuple[int, str]]:
    """(line, code) of each connector-name comparison or name table in a module's source, one per line."""
    return find_name_tests(source, NAMES)


def test_the_check_finds_each_kind_of_name_test():
    code = (
        'a = sink.connector == "kafka"\n'
        'b = "files" != source.connector\n'
        'c = x in ("kafka", "upsert-kafka")\n'
        'KAFKA_SINKS = ("kafka", "upsert-kafka")\n'
        'RUNNERS = {"files": run_files, "kafka": run_kafka}\n'
        'd = x not in {"console"}\n'
    )
    assert [line for line, _ in name_tests(code)] == [1, 2, 3, 4, 5, 6]


def test_the_check_lets_other_strings_and_writes_of_a_name_pass():
    code = (
        'y.pair("connector", "kafka")\n'  # writing a name (connect import) is no test of one
        'folder = tmp / "kafka"\n'
        'SINK_CHANGES = {("file", "kafka"): 1, ("kafka", "foreachBatch"): 2}\n'  # Spark sink names, mixed
        'e = fmt == "json"\n'
    )
    assert name_tests(code) == []


def test_no_module_outside_connectors_tests_a_connector_name():
    # compiler/runtime/ is the jobs' code, not the compiler's: a table part compares the format it is given
    outside = [
        p for p in sorted(COMPILER.rglob("*.py")) if not {"connectors", "runtime"} & set(p.relative_to(COMPILER).parts)
    ]
    assert len(outside) > 20
    found = [
        f"{p.relative_to(COMPILER.parent)}:{line}: {code}"
        for p in outside
        for line, code in name_tests(p.read_text(encoding="utf-8"))
    ]
    assert found == [], "ask the connector (compiler/connectors/base.py) instead:\n" + "\n".join(found)
