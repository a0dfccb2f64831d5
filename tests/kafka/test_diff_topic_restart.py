"""`pipec diff` against real restarts on a Kafka broker: a streaming job (kafka -> kafka) runs, its pipeline's source
or sink topic changes in git, diff gives its verdict, and the job compiled from the new version restarts on the old
checkpoint. A changed source topic (diff: needs a new checkpoint) makes the restarted query fail; a changed output
topic (diff: the checkpoint is safe, the output contract breaks) restarts and writes only the new records, to the
new topic."""

from __future__ import annotations

import json
import uuid

import pytest
from pipec.testing.runner import load_job

from tests.tools.gitrepo import Repo

pytestmark = [pytest.mark.kafka, pytest.mark.spark]

PIPELINE = """version: 1
name: topic_restart
mode: streaming
source:
  connector: kafka
  topics: [{src}]
  properties: {{bootstrap.servers: "{bootstrap}"}}
  value: {{format: json}}
  columns:
    - {{name: id, type: BIGINT}}
sink:
  connector: kafka
  topic: {dst}
  value: {{format: json}}
  checkpoint: {checkpoint}
  trigger: available-now
"""


def produce(kafka_client, topic: str, ids: range) -> None:
    kafka_client.produce(topic, [{"value": json.dumps({"id": i})} for i in ids])


def ids(kafka_client, topic: str) -> list[int]:
    return sorted(json.loads(r.value)["id"] for r in kafka_client.consume(topic))


class Deployment:
    def __init__(self, tmp_path, bootstrap: str, **topics: str):
        self.repo, self.bootstrap = Repo(tmp_path / "repo"), bootstrap
        self.values = {**topics, "bootstrap": bootstrap, "checkpoint": str(tmp_path / "ck")}
        self.repo.write("pipelines/p.yaml", PIPELINE.format(**self.values))
        self.repo.commit("v1")

    def run(self) -> int:
        out = self.repo.path / "generated"
        assert self.repo.pipec("compile", "pipelines", "--out", str(out)).returncode == 0
        job = load_job(out / "topic_restart.py")
        return job.main(["--bootstrap-servers", self.bootstrap])

    def change(self, **topics: str) -> tuple[int, dict]:
        self.repo.git("checkout", "-q", "-B", "change")
        self.repo.write("pipelines/p.yaml", PIPELINE.format(**{**self.values, **topics}))
        self.repo.commit("v2")
        return self.repo.diff_json("--against", "main")


def names() -> tuple[str, str, str]:
    tag = uuid.uuid4().hex[:8]
    return f"a-{tag}", f"b-{tag}", f"out-{tag}"


def test_changed_source_topic_fails_the_restart(kafka_bootstrap, kafka_client, spark, tmp_path):
    a, b, out = names()
    for t in (a, b, out):
        kafka_client.create_topic(t)
    d = Deployment(tmp_path, kafka_bootstrap, src=a, dst=out)
    produce(kafka_client, a, range(0, 10))
    assert d.run() == 0 and ids(kafka_client, out) == list(range(10))
    code, report = d.change(src=b)
    (v,) = report["pipelines"]
    assert code == 1 and v["verdict"] == "reset" and v["reasons"][0]["rule"] == "source-subscription"
    produce(kafka_client, b, range(10, 20))
    assert d.run() != 0  # Spark: the checkpoint's partitions of the old topic are gone (failOnDataLoss)
    assert ids(kafka_client, out) == list(range(10))


def test_changed_output_topic_restarts_and_writes_only_new_records(kafka_bootstrap, kafka_client, spark, tmp_path):
    a, out2, out = names()
    for t in (a, out, out2):
        kafka_client.create_topic(t)
    d = Deployment(tmp_path, kafka_bootstrap, src=a, dst=out)
    produce(kafka_client, a, range(0, 10))
    assert d.run() == 0
    code, report = d.change(dst=out2)
    (v,) = report["pipelines"]
    assert code == 0 and v["verdict"] == "breaking"
    assert {("output-topic", "safe"), ("sink-contract", "breaking")} <= {
        (r["rule"], r["severity"]) for r in v["reasons"]
    }
    produce(kafka_client, a, range(10, 20))
    assert d.run() == 0
    assert ids(kafka_client, out) == list(range(10))  # consumers of the old topic get nothing more
    assert ids(kafka_client, out2) == list(range(10, 20))  # "Kafka will see only the new data"
