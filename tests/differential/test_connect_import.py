"""`pipec import connect` round trip: Kafka Connect configs from public documentation (connect_roundtrip.DOC_CONFIGS,
each citing its source) are imported, compiled, and run on the same records as Kafka's own classes configured with
the config as written; the outputs agree record by record (topic, key, value with its field order), and both
fail or drop the same records (tombstones included: Kafka sees them as JsonConverter's schemaless null). A config
pipec cannot express is refused at the config's own line."""

from __future__ import annotations

import collections

import pytest
from connect_roundtrip import (
    CONFIGS,
    DOC_CONFIGS,
    harness_document,
    import_config,
    kafka_outcomes,
    pipec_outcomes,
    records,
)
from diff_run import run_harness

pytestmark = [pytest.mark.spark, pytest.mark.differential]


@pytest.fixture(scope="module")
def kafka_answers(kafka_classpath):
    documents = []
    for doc in DOC_CONFIGS:
        config, _, _ = import_config(doc)
        documents.append(harness_document(config, doc, records(doc)))
    return run_harness(kafka_classpath, documents)


def test_at_least_ten_documented_configs():
    assert len(DOC_CONFIGS) >= 10
    assert all(doc.source.startswith("https://") for doc in DOC_CONFIGS)


@pytest.mark.parametrize("doc", DOC_CONFIGS, ids=[d.id for d in DOC_CONFIGS])
def test_imported_pipeline_agrees_with_kafka(doc, kafka_answers, spark):
    config, text, diags = import_config(doc)
    assert not [d for d in diags if d.severity == "error"], [d.render() for d in diags]
    answer = kafka_answers[doc.id]
    assert "config_error" not in answer, answer["config_error"]
    recs = records(doc)
    kafka = kafka_outcomes(answer, recs)
    pipec = pipec_outcomes(spark, config, doc, text, recs)
    mismatches = [
        f"offset {r['offset']}:\n  Kafka {kafka[r['offset']]}\n  pipec {pipec[r['offset']]}"
        for r in recs
        if kafka[r["offset"]] != pipec[r["offset"]]
    ]
    kinds = collections.Counter("written" if o.startswith("{") else o for o in kafka.values())
    print(f"{doc.id}: {len(recs)} records ({sum(r['tombstone'] for r in recs)} tombstones), both sides {dict(kinds)}")
    assert not mismatches, "\n".join(mismatches[:5])


def test_a_week_year_topic_format_is_refused_at_its_line(tmp_path):
    """Confluent's TimestampRouter example formats the timestamp with YYYY, SimpleDateFormat's week year: pipec
    refuses it (E807) rather than write a calendar year, pointing at the transform in the config."""
    from pipec.tools.connect_cli import check_compiles
    from pipec.tools.connect_config import read_config
    from pipec.tools.connect_import import Importer

    config = read_config(CONFIGS / "timestamp_router.json")
    imported = Importer(config).run()
    check_compiles(imported, config)
    (error,) = [d for d in imported.diags.items if d.severity == "error"]
    assert "week year" in error.message and "transform 'TimestampRouter'" in error.message
    assert error.loc == config.entries["transforms.TimestampRouter.type"].loc


def test_a_chain_pipec_cannot_express_is_refused_at_its_line():
    """The Kafka docs' predicate example extracts a key field only for some topics: the key would have two types."""
    from pathlib import Path

    from pipec.tools.connect_cli import check_compiles
    from pipec.tools.connect_config import read_config
    from pipec.tools.connect_import import Importer

    path = CONFIGS / "predicates.properties"
    config = read_config(path)
    imported = Importer(config).run()
    check_compiles(imported, config)
    errors = [d for d in imported.diags.items if d.severity == "error"]
    assert errors, imported.text
    line = next(
        i for i, row in enumerate(Path(path).read_text().splitlines(), 1) if row.startswith("transforms.Extract.type")
    )
    assert any(d.loc.line == line and "Extract" in d.message for d in errors), [d.render() for d in errors]
