"""`pipec graph` (Mermaid, DOT, SVG) and column lineage as OpenLineage run events, on a real git repository of
pipelines; every event is checked against the model `openlineage-python` ships (openlineage_check)."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from tests.tools.gitrepo import Repo
from tests.tools.openlineage_check import Invalid, validate_run_event

ORDERS = """version: 1
name: orders_enrich
source:
  connector: kafka
  topics: [orders]
  properties: {bootstrap.servers: "broker:9092"}
  key: {format: json, fields: [id]}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
    - {name: customer, type: "STRUCT<name STRING, address STRUCT<city STRING>>"}
    - {name: card, type: STRING}
    - {name: amount, type: STRING}
    - {name: ts, type: "TIMESTAMP_LTZ(3)", metadata: timestamp, virtual: true}
    - {name: trace, header: trace-id}
predicates:
  is_test: {type: TopicNameMatches, pattern: "test-.*"}
  traced: {type: HasHeaderKey, name: trace-id}
transforms:
  - {name: drop_tests, type: Filter, predicate: is_test}
  - {name: mask, type: MaskField$Value, fields: [card], predicate: traced}
  - {name: typed, type: Cast$Value, spec: "amount:float64"}
  - {name: rename, type: ReplaceField$Value, renames: ["customer:buyer", "ts:seen_at"]}
  - {name: flat, type: Flatten$Value, delimiter: _}
  - {name: origin, type: InsertField$Value, topic.field: from_topic, static.field: shop, static.value: web}
  - {name: rekey, type: ValueToKey, fields: [buyer_name]}
  - {name: city_header, type: HeaderFrom$Value, fields: [buyer_address_city], headers: [city], operation: copy}
sink:
  connector: kafka
  topic: ${env:ENRICHED_TOPIC:-orders-enriched}
  value: {format: json}
  checkpoint: /tmp/ck/orders_enrich
"""
AUDIT = """version: 1
name: audit
source:
  connector: kafka
  topic-pattern: "orders.*"
  properties: {bootstrap.servers: "broker:9092"}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
sink:
  connector: files
  path: /data/audit
  format: json
  checkpoint: /tmp/ck/audit
errors: {tolerance: all, deadletterqueue.topic.name: audit-dlq}
"""


@pytest.fixture
def repo(tmp_path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("pipelines/sales/orders.yaml", ORDERS)
    r.write("pipelines/ops/audit.yaml", AUDIT)
    r.commit("two pipelines")
    return r


def test_mermaid_shows_topics_folders_pipelines_and_env_topics(repo):
    proc = repo.pipec("graph", "pipelines")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert text.startswith("flowchart LR")
    assert 'subgraph folder0["pipelines/ops/"]' in text and 'subgraph folder1["pipelines/sales/"]' in text
    assert '(["orders"])' in text and '(["${env:ENRICHED_TOPIC:-orders-enriched} (from the environment)"])' in text
    assert '{"topics matching orders.*"}' in text and '[("/data/audit")]' in text
    assert "-.->|dead letters|" in text and "-.->|matches|" in text  # orders matches the audit pattern
    assert "classDef env stroke-dasharray" in text


def test_dot_and_svg(repo):
    dot = repo.pipec("graph", "pipelines", "--format", "dot")
    assert dot.returncode == 0 and dot.stdout.startswith("digraph pipec {")
    assert 'label="pipelines/sales/"' in dot.stdout and "style=dashed" in dot.stdout
    svg = repo.pipec("graph", "pipelines", "--format", "svg", "--out", "graph.svg")
    if shutil.which("dot"):
        assert svg.returncode == 0, svg.stderr
        root = ET.parse(repo.path / "graph.svg").getroot()
        assert root.tag.endswith("svg") and "orders_enrich" in ET.tostring(root, encoding="unicode")
    else:  # SVG needs Graphviz: a clear error, nothing written
        assert svg.returncode == 2 and "Graphviz's `dot`" in svg.stderr and not (repo.path / "graph.svg").exists()


def lineage(event: dict) -> dict[str, list[tuple[str, str, bool]]]:
    facet = event["outputs"][0]["facets"]["columnLineage"]
    return {
        out: [
            (f["field"], f["transformations"][0]["subtype"], f["transformations"][0].get("masking", False))
            for f in spec["inputFields"]
        ]
        for out, spec in facet["fields"].items()
    }


def test_column_lineage_follows_each_step(repo):
    proc = repo.pipec("compile", "pipelines", "--lineage", "lineage")
    assert proc.returncode == 0, proc.stderr
    event = json.loads((repo.path / "lineage/orders_enrich.openlineage.json").read_text())
    validate_run_event(event)
    fields = lineage(event)
    assert fields["id"] == [("id", "IDENTITY", False)]
    assert fields["card"] == [("card", "TRANSFORMATION", True)]  # MaskField
    assert fields["amount"] == [("amount", "TRANSFORMATION", False)]  # Cast
    assert fields["buyer_name"] == [("customer.name", "IDENTITY", False)]  # renamed, then flattened
    assert fields["buyer_address_city"] == [("customer.address.city", "IDENTITY", False)]
    assert fields["seen_at"] == [("metadata:timestamp", "IDENTITY", False)]  # a renamed virtual column is written
    assert fields["trace"] == [("header:trace-id", "IDENTITY", False)]
    assert fields["from_topic"] == [("metadata:topic", "IDENTITY", False)]
    assert "shop" not in fields  # a literal has no input field
    assert fields["key.buyer_name"] == [("customer.name", "IDENTITY", False)]  # ValueToKey
    assert fields["header:city"] == [("customer.address.city", "IDENTITY", False)]  # HeaderFrom
    indirect = {
        (f["field"], f["transformations"][0]["subtype"])
        for f in event["outputs"][0]["facets"]["columnLineage"]["dataset"]
    }
    assert indirect == {("metadata:topic", "FILTER"), ("header:trace-id", "CONDITIONAL")}
    assert event["inputs"] == [
        {"namespace": "kafka://broker:9092", "name": "orders", "facets": event["inputs"][0]["facets"]}
    ]
    assert event["outputs"][0]["name"] == "${env:ENRICHED_TOPIC:-orders-enriched}"
    assert event["job"]["facets"]["jobType"]["processingType"] == "STREAMING"


def test_every_event_validates_and_ids_are_stable(repo):
    first = json.loads(repo.pipec("graph", "pipelines", "--format", "openlineage").stdout)
    second = json.loads(repo.pipec("graph", "pipelines", "--format", "openlineage").stdout)
    assert len(first) == 2
    for a, b in zip(first, second):
        validate_run_event(a)
        assert a["run"]["runId"] == b["run"]["runId"]
    audit = next(e for e in first if e["job"]["name"] == "audit")
    assert audit["inputs"][0]["name"] == "pattern:orders.*" and audit["outputs"][0]["namespace"] == "file"


def test_the_check_rejects_what_the_spec_does_not_allow(repo):
    event = json.loads(repo.pipec("graph", "pipelines", "--format", "openlineage").stdout)[0]
    event["eventType"] = "FINISHED"
    with pytest.raises(Invalid, match="not one of"):
        validate_run_event(event)
