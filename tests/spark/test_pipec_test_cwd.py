"""`pipec test` leaves nothing in the current directory (issue 11): Spark 4.0.0 creates `artifacts/` in its JVM's
working directory (SPARK-52396; this test failed there before the JVM got a folder of its own) and any Spark resolves
other relative paths there. Run as users run it, in its own process (a second JVM), from a fresh empty folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
PIPEC = ROOT / ".venv" / "bin" / "pipec"
EXAMPLE = ROOT / "pipelines" / "orders_enriched.yaml"


def test_pipec_test_leaves_the_current_directory_empty(tmp_path):
    cwd, temp = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")}
    env["TMPDIR"] = str(temp)  # the JVM's own folder goes here, and must be gone afterwards
    command = [str(PIPEC)] if PIPEC.exists() else [sys.executable, "-m", "pipec"]
    done = subprocess.run(
        [*command, "test", str(EXAMPLE)], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    cases = EXAMPLE.read_text(encoding="utf-8").split("\ntests:", 1)[1].count("\n  - name:")
    assert cases and done.stdout.splitlines()[-1] == f"{cases} passed, 0 failed", done.stdout
    assert sorted(os.listdir(cwd)) == []
    assert not list(temp.glob("pipec-spark-*"))
