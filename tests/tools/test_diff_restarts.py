"""`pipec diff` against real restarts: a generated streaming job (files source -> files sink) runs on the first
version of a pipeline, the pipeline changes in git, `diff` gives its verdict, and the job compiled from the new
version runs on the old checkpoint. What diff calls safe restarts and writes every record exactly once; what it
calls unsafe fails or loses records silently, and each test shows which. The output folder is read the way
Spark reads a streaming files sink: through its `_spark_metadata` log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.gitrepo import Repo

pytestmark = pytest.mark.spark

PIPELINE = """version: 1
name: events
mode: streaming
source:
  connector: files
  path: ${env:IN_DIR}
  format: json
  columns:
    - {name: id, type: BIGINT}
    - {name: kind, type: STRING}
    - {name: amount, type: DOUBLE}
transforms: []
sink:
  connector: files
  path: ${env:OUT_DIR}
  format: json
  checkpoint: ${env:CK_DIR}/events
  trigger: available-now
"""


def sink_rows(folder: Path) -> list[dict]:
    """Rows of every file the sink's _spark_metadata log lists as committed (what Spark reads)."""
    rows = []
    log = folder / "_spark_metadata"
    for entry in sorted(
        (p for p in log.iterdir() if p.name.split(".")[0].isdigit()), key=lambda p: int(p.name.split(".")[0])
    ):
        for line in entry.read_text().splitlines()[1:]:  # the first line is the log's version
            path = json.loads(line)["path"]
            rows += [json.loads(r) for r in Path(path.removeprefix("file:")).read_text().splitlines() if r]
    return rows


class Scenario:
    """A pipeline repository, its data folders, and the generated job of each version."""

    def __init__(self, tmp: Path):
        self.repo = Repo(tmp / "repo")
        self.dirs = {name: tmp / name.lower() for name in ("IN_DIR", "IN2_DIR", "OUT_DIR", "CK_DIR")}
        for d in self.dirs.values():
            d.mkdir()
        self.repo.write("pipelines/events.yaml", PIPELINE)
        self.repo.commit("events v1")

    def land(self, folder: str, name: str, ids: range) -> None:
        """A new input file (written aside and renamed in, as a file source needs)."""
        rows = "".join(
            json.dumps({"id": i, "kind": "test" if i % 5 == 0 else "sale", "amount": i * 1.5}) + "\n" for i in ids
        )
        tmp = self.dirs[folder] / f".{name}.tmp"
        tmp.write_text(rows)
        tmp.rename(self.dirs[folder] / name)

    def run_job(self) -> subprocess.CompletedProcess:
        """Compile the working tree's pipeline and run its job once (available-now) on the checkpoint."""
        out = self.repo.path / "generated"
        compiled = self.repo.pipec("compile", "pipelines", "--out", str(out))
        assert compiled.returncode == 0, compiled.stderr
        env = {**os.environ, **{k: str(v) for k, v in self.dirs.items()}, "PYSPARK_PYTHON": sys.executable}
        return subprocess.run(
            [
                sys.executable,
                str(out / "events.py"),
                "--master",
                "local[1]",
                "--conf",
                "spark.sql.shuffle.partitions=1",
                "--conf",
                "spark.ui.enabled=false",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=self.repo.path,
        )

    def change(self, old: str, new: str) -> tuple[int, dict]:
        """Edit the pipeline on a branch, commit, and ask diff about it against main."""
        self.repo.git("checkout", "-q", "-B", "change")
        path = self.repo.path / "pipelines/events.yaml"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
        self.repo.commit("change events")
        return self.repo.diff_json("--against", "main")


@pytest.fixture
def scenario(tmp_path):
    s = Scenario(tmp_path)
    s.land("IN_DIR", "a.json", range(0, 20))
    first = s.run_job()
    assert first.returncode == 0, first.stderr[-2000:]
    assert sorted(r["id"] for r in sink_rows(s.dirs["OUT_DIR"])) == list(range(20))
    return s


def verdict(report: dict) -> dict:
    (pipeline,) = report["pipelines"]
    return pipeline


def test_safe_change_restarts_and_writes_each_record_once(scenario):
    code, report = scenario.change(
        "transforms: []",
        """transforms:
  - {name: drop_tests, type: Filter, predicate: is_test}
  - {name: tag, type: InsertField$Value, static.field: origin, static.value: shop}
predicates:
  is_test: {type: TopicNameMatches, pattern: "nothing-matches"}""",
    )
    v = verdict(report)
    assert code == 0 and v["needs_reset"] is False, v
    assert v["verdict"] == "compatible"  # checkpoint-safe; consumers see a new field
    assert {r["rule"] for r in v["reasons"]} >= {"filters", "projections", "sink-contract"}
    scenario.land("IN_DIR", "b.json", range(20, 40))
    second = scenario.run_job()
    assert second.returncode == 0, second.stderr[-2000:]
    rows = sink_rows(scenario.dirs["OUT_DIR"])
    assert sorted(r["id"] for r in rows) == list(range(40))  # nothing lost, nothing twice
    assert all(("origin" in r) == (r["id"] >= 20) for r in rows)  # the old file was not read again


def test_moved_checkpoint_with_the_same_folder_silently_loses_records(scenario):
    code, report = scenario.change("checkpoint: ${env:CK_DIR}/events", "checkpoint: ${env:CK_DIR}/events-v2")
    v = verdict(report)
    assert code == 1 and v["verdict"] == "reset" and next(r["rule"] for r in v["reasons"]) == "file-sink-log", v
    scenario.land("IN_DIR", "b.json", range(20, 40))
    second = scenario.run_job()
    assert second.returncode == 0, second.stderr[-2000:]  # Spark says nothing...
    ids = sorted(r["id"] for r in sink_rows(scenario.dirs["OUT_DIR"]))
    assert ids == list(range(20)), "...and the 20 new records never reach the folder"  # batch 0 was skipped


def test_changed_source_folder_fails_the_restart(scenario):
    scenario.land("IN2_DIR", "a.json", range(0, 20))  # the same data, moved to a new folder, and a new file
    scenario.land("IN2_DIR", "b.json", range(20, 40))
    code, report = scenario.change("path: ${env:IN_DIR}", "path: ${env:IN2_DIR}")
    v = verdict(report)
    assert code == 1 and v["verdict"] == "reset" and v["reasons"][0]["rule"] == "source-subscription", v
    second = scenario.run_job()
    assert second.returncode != 0  # Spark re-reads the checkpoint's last batch, whose files lie outside the new path
    assert "Wrong basePath" in second.stderr
    assert sorted(r["id"] for r in sink_rows(scenario.dirs["OUT_DIR"])) == list(range(20))  # nothing more written


def test_breaking_contract_change_restarts_but_consumers_lose_a_field(scenario):
    code, report = scenario.change(
        "transforms: []",
        """transforms:
  - {name: drop_amount, type: ReplaceField$Value, exclude: [amount]}""",
    )
    v = verdict(report)
    assert code == 0 and v["verdict"] == "breaking" and v["breaking"], v
    assert any("'amount'" in r["message"] and r["severity"] == "breaking" for r in v["reasons"])
    assert scenario.repo.pipec("diff", "--against", "main", "--fail-on", "contract").returncode == 1
    scenario.land("IN_DIR", "b.json", range(20, 40))
    second = scenario.run_job()
    assert second.returncode == 0, second.stderr[-2000:]
    rows = sink_rows(scenario.dirs["OUT_DIR"])
    assert sorted(r["id"] for r in rows) == list(range(40))
    assert [r["id"] for r in rows if "amount" not in r] == list(range(20, 40))  # the new rows lack the field
