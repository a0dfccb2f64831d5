"""docs/ci.md tried as a new user would: a fresh repository of pipelines, a pull-request branch, and the example
workflow's `run:` steps executed in order (pipec comes from this environment, not from `pip install`); and the
hooks of .pre-commit-hooks.yaml run as pre-commit runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.tools.gitrepo import ROOT, Repo

pytestmark = (
    pytest.mark.slow
)  # subprocesses (a wheel build, git, cold starts): the full suite runs it, not the fast lane

PIPELINE = """version: 1
name: orders_clean
mode: batch
source:
  connector: files
  path: data/orders
  format: json
  columns:
    - {name: id, type: BIGINT}
    - {name: card, type: STRING}
transforms:
  - {name: mask, type: MaskField$Value, fields: [card], replacement: "****"}
sink:
  connector: files
  path: out/orders
  format: json
tests:
  - name: masks the card
    given: [{value: {id: 1, card: "4111"}}]
    expect: [{value: {id: 1, card: "****"}}]
"""
STREAMING = PIPELINE.replace("mode: batch", "mode: streaming").replace(
    "  format: json\ntests:", "  format: json\n  checkpoint: ck/orders\ntests:"
)


def workflow_steps() -> list[dict]:
    text = (ROOT / "docs/ci.md").read_text()
    block = re.search(r"```yaml\n(name: pipelines\n.*?)```", text, re.S).group(1)
    return yaml.safe_load(block)["jobs"]["pipec"]["steps"]


def run_workflow(repo: Repo) -> list[tuple[str, int, str]]:
    """Each `run:` step but the install, in order, stopping at the first failure: (name, exit code, output)."""
    bin_dir = Path(sys.executable).parent
    summary = repo.path.parent / "summary.md"
    env = {
        **os.environ,
        "GITHUB_BASE_REF": "main",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PYTHONPATH": str(ROOT),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYSPARK_PYTHON": sys.executable,
    }
    results = []
    for step in workflow_steps():
        if "run" not in step or step["run"].startswith("pip install"):
            continue
        proc = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=repo.path, env=env, capture_output=True, text=True, timeout=600
        )
        results.append((step.get("name", step["run"]), proc.returncode, proc.stdout + proc.stderr))
        if proc.returncode:
            break
    return results


@pytest.fixture
def repo(tmp_path) -> Repo:
    r = Repo(tmp_path / "pipelines-repo")
    r.write("requirements.txt", "pipec==0.1.0\n")
    r.write("pipelines/orders.yaml", STREAMING)
    assert r.pipec("compile", "pipelines").returncode == 0
    r.commit("orders pipeline")
    r.git("update-ref", "refs/remotes/origin/main", "main")  # what actions/checkout fetches
    r.git("checkout", "-q", "-b", "mask-differently")
    return r


def test_the_workflow_has_the_three_checks():
    runs = [s["run"] for s in workflow_steps() if "run" in s]
    assert (
        any("pipec check" in r for r in runs)
        and any("pipec diff" in r for r in runs)
        and any("pipec test" in r for r in runs)
    )


@pytest.mark.spark
def test_a_safe_pull_request_passes_every_step(repo):
    repo.write(
        "pipelines/orders.yaml",
        STREAMING.replace('replacement: "****"', 'replacement: "xxxx"').replace('card: "****"}', 'card: "xxxx"}'),
    )
    assert repo.pipec("compile", "pipelines").returncode == 0
    repo.commit("mask with x")
    results = run_workflow(repo)
    assert [code for _, code, _ in results] == [0, 0, 0], results
    assert "1 generated job(s) current" in results[0][2]
    assert "same checkpoint is safe" in (repo.path.parent / "summary.md").read_text()
    assert "masks the card" in results[2][2]


def test_a_topic_change_fails_at_the_diff_step_with_a_summary(repo):
    changed = STREAMING.replace("path: data/orders", "path: data/orders-v2")
    repo.write("pipelines/orders.yaml", changed)
    assert repo.pipec("compile", "pipelines").returncode == 0
    repo.commit("read another folder")
    results = run_workflow(repo)
    assert [(name, code) for name, code, _ in results] == [
        ("generated jobs are current", 0),
        ("checkpoint and contract verdicts", 1),
    ]
    summary = (repo.path.parent / "summary.md").read_text()
    assert "| `orders_clean` | `pipelines/orders.yaml` | :x: needs a new checkpoint or state reset |" in summary


def test_a_stale_job_fails_the_first_step(repo):
    repo.write("pipelines/orders.yaml", STREAMING.replace('"****"', '"####"'))
    repo.commit("forgot to compile")
    ((_, code, output),) = run_workflow(repo)
    assert code == 1 and "orders_clean.py: differs from its pipeline" in output


def test_pre_commit_hooks_run_as_pre_commit_runs_them(repo):
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(hooks) == {"pipec-validate", "pipec-check"}
    files = repo.git("ls-files").split()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }

    def run(hook: dict) -> subprocess.CompletedProcess:
        selected = [f for f in files if re.search(hook["files"], f)]
        args = hook["entry"].split() + (selected if hook["pass_filenames"] else [])
        return subprocess.run(args, cwd=repo.path, env=env, capture_output=True, text=True)

    assert run(hooks["pipec-validate"]).returncode == 0
    assert run(hooks["pipec-check"]).returncode == 0
    repo.write("pipelines/orders.yaml", STREAMING.replace("MaskField$Value", "MaskFeld$Value"))
    bad = run(hooks["pipec-validate"])
    assert (
        bad.returncode == 2
        and "pipelines/orders.yaml:12:" in bad.stderr
        and "did you mean 'MaskField$Value'" in bad.stderr
    )
    repo.write("pipelines/orders.yaml", STREAMING.replace('"****"', '"####"'))
    assert run(hooks["pipec-check"]).returncode == 1
