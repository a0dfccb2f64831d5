"""Kafka's own classes confirm the real-world corpus's expectations (tests/real_world/configs/): every test case's
given records run through SmtHarness with the file's transforms and predicates, and what Kafka writes (in the form
the pipeline's sink writes it) must be what the case expects; a record the case expects to fail must fail in
Kafka, and one it expects in a converter's dead letters must be one JsonConverter cannot read. pipec plays no part:
tests/real_world/test_real_world.py runs the same cases through pipec."""

from __future__ import annotations

import pytest
from diff_corpus import (
    CONVERTER_STAGES,
    NOT_IN_KAFKA,
    compile_corpus_file,
    corpus_files,
    harness_document,
    harness_records,
    not_checkable,
    sink_view,
)
from diff_run import run_harness
from pipec.resolve.test_names import CONTEXT_PREFIX
from pipec.testing.compare import compare, headers_list

pytestmark = pytest.mark.differential
FILES = [p for p in corpus_files() if p.stem not in NOT_IN_KAFKA]


def test_every_corpus_file_is_checked_or_says_why_not():
    assert set(NOT_IN_KAFKA) <= {p.stem for p in corpus_files()}
    for path in FILES:
        assert not_checkable(compile_corpus_file(path)) is None, path.stem


@pytest.fixture(scope="module")
def kafka_answers(kafka_classpath) -> dict:
    """Every case of every checked corpus file through one JVM: id -> (compiled, case, records, undecodable
    offsets, answer)."""
    cases, documents = {}, []
    for path in FILES:
        compiled = compile_corpus_file(path)
        for i, case in enumerate(compiled.pipeline.tests):
            doc_id = f"{path.stem}#{i}"
            records, undecodable = harness_records(compiled, case)
            cases[doc_id] = (compiled, case, records, undecodable)
            documents.append(harness_document(doc_id, path, records))
    answers = run_harness(kafka_classpath, documents)
    return {doc_id: (*case, answers[doc_id]) for doc_id, case in cases.items()}


def expected_dead_letters(case) -> dict[int, str | None]:
    """Offset -> stage of each dead letter a case expects, from the context headers it names."""
    out = {}
    for letter in case.expect_dead_letters or ():
        headers = {k: v.decode("utf-8") for k, v in headers_list(letter.fields.get("headers")) or [] if v is not None}
        out[int(headers[CONTEXT_PREFIX + "offset"])] = headers.get(CONTEXT_PREFIX + "stage")
    return out


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_kafka_confirms_the_expectations(path, kafka_answers):
    checked = {k: v for k, v in kafka_answers.items() if k.split("#")[0] == path.stem}
    assert checked, f"{path.stem} has no test cases"
    for doc_id, (compiled, case, records, undecodable, answer) in checked.items():
        assert "config_error" not in answer, f"{doc_id}: Kafka refuses the configuration: {answer['config_error']}"
        results = answer["results"]
        where = f"{path.name}:{case.loc.line} {case.name}"
        if case.expect_error is not None:
            assert records and all("error" in r for r in results), f"{where}: Kafka does not fail the record: {results}"
            continue
        dead = expected_dead_letters(case)
        failed = {rec["offset"] for rec, res in zip(records, results) if "error" in res}
        assert failed == {o for o, stage in dead.items() if stage not in CONVERTER_STAGES}, (
            f"{where}: Kafka's transforms fail {results}"
        )
        assert set(undecodable) == {o for o, stage in dead.items() if stage in CONVERTER_STAGES}, (
            f"{where}: JsonConverter cannot read the records at offsets {undecodable}"
        )
        written = [
            sink_view(compiled, rec, res)
            for rec, res in zip(records, results)
            if "error" not in res and not res.get("dropped")
        ]
        mismatch = compare(
            [(r.loc.line, r.fields) for r in case.expect or ()],
            written,
            ordered=compiled.pipeline.sink.connector == "kafka" or compiled.pipeline.sink.config.envelope,
        )
        assert mismatch is None, f"{where}: Kafka disagrees with the expectation:\n" + "\n".join(mismatch.lines())
