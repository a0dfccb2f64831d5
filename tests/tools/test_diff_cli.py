"""`pipec diff` on real git repositories: each verdict class, exit codes, the JSON and markdown forms, bad input.
(The restart-backed tests are in test_diff_restarts.py.)"""

from __future__ import annotations

import json

import pytest

from tests.tools.gitrepo import Repo

ORDERS = """version: 1
name: orders_clean
mode: streaming
source:
  connector: kafka
  topics: [orders]
  properties: {bootstrap.servers: "localhost:9092"}
  options: {maxOffsetsPerTrigger: 1000}
  key: {format: json, fields: [id]}
  value: {format: json}
  columns:
    - {name: id, type: BIGINT}
    - {name: amount, type: DOUBLE}
    - {name: card, type: STRING}
transforms:
  - {name: mask, type: MaskField$Value, fields: [card]}
sink:
  connector: kafka
  topic: orders-clean
  value: {format: json}
  checkpoint: /tmp/checkpoints/orders_clean
"""


@pytest.fixture
def repo(tmp_path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.write("pipelines/orders.yaml", ORDERS)
    r.commit("orders")
    r.git("checkout", "-q", "-b", "feature")
    return r


def change(repo: Repo, old: str, new: str) -> None:
    path = repo.path / "pipelines/orders.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def only(report: dict) -> dict:
    (v,) = report["pipelines"]
    return v


def test_no_change_says_so(repo):
    proc = repo.pipec("diff")
    assert proc.returncode == 0 and "no pipeline changed" in proc.stdout


def test_topic_change_needs_a_new_checkpoint(repo):
    change(repo, "topics: [orders]", "topics: [orders, returns]")
    code, report = repo.diff_json()  # default: the merge base with main; uncommitted edits count
    v = only(report)
    assert code == 1 and v["verdict"] == "reset" and v["needs_reset"]
    reason = v["reasons"][0]
    assert reason["rule"] == "source-subscription" and "[orders] to [orders, returns]" in reason["message"]
    assert "Changes to subscribed topics/files" in report["rules"]["source-subscription"]["source"]


def test_rate_limit_and_filter_are_safe(repo):
    change(repo, "maxOffsetsPerTrigger: 1000", "maxOffsetsPerTrigger: 50")
    change(
        repo,
        "transforms:\n",
        "predicates:\n  never: {type: TopicNameMatches, pattern: nope}\ntransforms:\n"
        "  - {name: drop_none, type: Filter, predicate: never}\n",
    )
    repo.commit("tune")
    code, report = repo.diff_json("--against", "main")
    v = only(report)
    assert code == 0 and v["verdict"] == "safe", v
    assert {r["rule"] for r in v["reasons"]} == {"rate-limits", "filters"}


def test_startup_change_has_no_effect_on_the_checkpoint(repo):
    change(repo, "  options:", "  startup: {mode: latest-offset}\n  options:")
    code, report = repo.diff_json()
    v = only(report)
    assert code == 0 and v["verdict"] == "safe"
    assert [r["rule"] for r in v["reasons"]] == ["starting-offsets"] and v["reasons"][0]["severity"] == "note"


def test_output_topic_change_is_allowed_but_breaks_consumers(repo):
    change(repo, "topic: orders-clean", "topic: orders-clean-v2")
    code, report = repo.diff_json()
    v = only(report)
    assert code == 0 and v["verdict"] == "breaking"
    rules = {(r["rule"], r["severity"]) for r in v["reasons"]}
    assert ("output-topic", "safe") in rules and ("sink-contract", "breaking") in rules
    assert repo.pipec("diff", "--fail-on", "contract").returncode == 1


def test_field_added_is_compatible_retyped_and_removed_are_breaking(repo):
    change(
        repo, "    - {name: card, type: STRING}", "    - {name: card, type: STRING}\n    - {name: note, type: STRING}"
    )
    assert only(repo.diff_json()[1])["verdict"] == "compatible"
    change(repo, "{name: amount, type: DOUBLE}", "{name: amount, type: STRING}")
    change(repo, "    - {name: card, type: STRING}\n", "")
    change(repo, "fields: [card]", "fields: [note]")
    messages = [r["message"] for r in only(repo.diff_json()[1])["reasons"] if r["severity"] == "breaking"]
    assert "value field 'amount' changes type from DOUBLE to STRING" in messages
    assert "value field 'card' is renamed to 'note'" in messages  # same type, same place: read as a rename


def test_kafka_sink_to_files_sink_is_not_allowed(repo):
    change(
        repo,
        """  connector: kafka
  topic: orders-clean
  value: {format: json}""",
        """  connector: files
  path: /tmp/out/orders
  format: json""",
    )
    code, report = repo.diff_json()
    assert code == 1 and "sink-kafka-to-file" in [r["rule"] for r in only(report)["reasons"]]


def test_dead_letters_to_a_folder_make_the_stream_foreach_batch_which_kafka_allows(repo):
    repo.write(
        "pipelines/orders.yaml",
        (repo.path / "pipelines/orders.yaml").read_text()
        + "errors: {tolerance: all, deadletterqueue.path: /tmp/orders-dlq}\n",
    )
    code, report = repo.diff_json()
    assert code == 0 and "sink-kafka-foreach" in [r["rule"] for r in only(report)["reasons"]]


def test_dead_letters_to_a_topic_keep_the_kafka_sink(repo):
    """The sink's rows and the dead letters go out in one write of Spark's Kafka sink (docs/errors.md)."""
    repo.write(
        "pipelines/orders.yaml",
        (repo.path / "pipelines/orders.yaml").read_text()
        + "errors: {tolerance: all, deadletterqueue.topic.name: orders-dlq}\n",
    )
    code, report = repo.diff_json()
    assert code == 0 and not [r for r in only(report)["reasons"] if r["rule"].startswith("sink-")], report


def test_new_and_removed_pipelines(repo):
    repo.write("pipelines/copy.yaml", ORDERS.replace("name: orders_clean", "name: orders_copy"))
    (repo.path / "pipelines/orders.yaml").unlink()
    code, report = repo.diff_json()
    kinds = {v["name"]: v["verdict"] for v in report["pipelines"]}
    assert code == 0 and kinds == {"orders_copy": "new", "orders_clean": "removed"}


def test_markdown_for_a_pull_request_comment(repo):
    change(repo, "topics: [orders]", "topics: [orders2]")
    proc = repo.pipec("diff", "--format", "markdown")
    assert proc.returncode == 1
    assert "| `orders_clean` | `pipelines/orders.yaml` | :x: needs a new checkpoint or state reset |" in proc.stdout
    assert "[^1]: changes to subscribed topics or files are generally not allowed" in proc.stdout
    assert "recovery-semantics-after-changes-in-a-streaming-query" in proc.stdout


def test_bad_input_exits_2(repo):
    assert repo.pipec("diff", "--against", "no-such-ref").returncode == 2
    change(repo, "name: orders_clean", "name: Orders Clean")
    proc = repo.pipec("diff")
    assert proc.returncode == 2 and "pipelines/orders.yaml:2:7" in proc.stderr and "Traceback" not in proc.stderr


def test_text_form_names_each_rule(repo):
    change(repo, "topics: [orders]", 'topic-pattern: "orders.*"')
    proc = repo.pipec("diff")
    assert proc.returncode == 1
    assert "pipelines/orders.yaml: orders_clean: needs a new checkpoint or state reset" in proc.stdout
    assert "rule: changes to subscribed topics" in proc.stdout
    json.loads(repo.pipec("diff", "--format", "json").stdout)  # the same, machine-readable


def test_a_table_sink_knows_what_needs_a_new_table(repo):
    table = (
        "sink:\n  connector: delta\n  path: /lake/orders\n  apply: upsert\n  primary-key: [id]\n"
        "  checkpoint: /tmp/checkpoints/orders_clean\n"
    )
    change(repo, ORDERS[ORDERS.index("sink:") :], table)
    repo.commit("to a delta table")
    repo.git("branch", "-f", "main", "HEAD")  # the table sink is what main has
    change(repo, "apply: upsert\n  primary-key: [id]", "apply: history\n  primary-key: [id, amount]")
    code, report = repo.diff_json()
    messages = [r["message"] for r in only(report)["reasons"]]
    assert code == 0 and only(report)["verdict"] == "breaking", report
    assert any("apply mode changes from upsert to history" in m and "new table" in m for m in messages), messages
    assert any("key or partitioning changes" in m for m in messages), messages
