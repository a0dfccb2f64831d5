"""Differential tests: each case's transform chain runs through Kafka Connect's real classes (SmtHarness.java on
a JVM) and through pipec's generated job on a local Spark, on the same records; the outcomes must agree record by
record (written with equal topic, partition, timestamp, key, value, headers and key and value schemas; dropped; or
failed), except where differences.py documents a deliberate difference."""

from __future__ import annotations

import pytest
from diff_cases import CASES
from diff_run import STATS, differs, kafka_outcomes, pipec_schemas
from differences import BY_ID, documented
from pipec.transforms import PACKAGE, PREDICATE_PACKAGE, REGISTRY

pytestmark = [pytest.mark.spark, pytest.mark.differential]


def test_every_case_lists_known_differences():
    for case in CASES:
        assert set(case.differences) <= set(BY_ID), case.id


def test_cases_cover_every_registered_transform_and_predicate():
    used = set().union(*(c.transforms() for c in CASES))
    # the harness runs Apache Kafka's jars from Maven Central: a transform of another package (Confluent's Drop, on
    # Confluent Hub only) takes its expectations from its vendor's documentation (its record tests)
    kafkas = {name for name, spec in REGISTRY.transforms.items() if spec.package == PACKAGE}
    missing = kafkas - used
    assert not missing, f"no differential case for {sorted(missing)}"
    predicates = {p["type"].removeprefix(PREDICATE_PACKAGE) for c in CASES for p in c.predicate_map.values()}
    assert set(REGISTRY.predicates) <= predicates


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pipec_agrees_with_kafka(case, kafka_results, case_records, pipec_results):
    absent = sorted(case.transforms() - set(REGISTRY.transforms))
    if absent:
        pytest.skip(f"{', '.join(absent)} not in the registry yet")
    answer = kafka_results[case.id]
    result = pipec_results[case.id]
    compile_kind = [i for i in case.differences if BY_ID[i].kind == "compile"]
    if result.compile_error is not None:
        assert compile_kind, f"pipec refused the case's pipeline:\n{result.compile_error}"
        assert "config_error" not in answer, f"Kafka refused it too: {answer['config_error']}"
        STATS["cases"] += 1
        for i in compile_kind:
            STATS["documented"][i] = STATS["documented"].get(i, 0) + 1
        return
    assert not compile_kind, f"pipec compiled the case, but it lists compile-time differences {compile_kind}"
    assert "config_error" not in answer, f"Kafka refused the configuration: {answer['config_error']}"
    if result.failure is not None:
        raise result.failure

    records = case_records[case.id]
    kafka = kafka_outcomes(answer, records)
    pipec = result.outcomes
    schemas = pipec_schemas(result.job)
    problems, seen = [], set()
    for rec in records:
        k, p = kafka[rec["offset"]], pipec[rec["offset"]]
        why = differs(k, p, schemas)
        if why is None:
            continue
        diff = documented(case.differences, k, p)
        if diff is not None:
            seen.add(diff.id)
            STATS["documented"][diff.id] = STATS["documented"].get(diff.id, 0) + 1
            continue
        problems.append(f"  record offset {rec['offset']}: {why}\n      input: {_describe_input(rec)}")
    STATS["cases"] += 1
    STATS["compared"] += len(records)
    STATS["mismatches"] += len(problems)
    unseen = [i for i in case.differences if BY_ID[i].kind == "record" and i not in seen]
    assert not problems, f"{len(problems)} of {len(records)} records differ:\n" + "\n".join(problems[:8])
    assert not unseen, f"the case lists differences it never showed: {unseen}"


def _describe_input(rec: dict) -> str:
    from diff_connect import show

    shown = {k: rec[k] for k in ("topic", "partition", "key", "value", "headers") if rec.get(k) not in (None, [])}
    if rec.get("value") is None:
        shown["value"] = None
    return show(shown)
