"""A checked-in generated job run as users run it: `python generated/NAME.py ...` in its own process (SPEC section 1).

This starts a second JVM (the job's real entry point), so the module keeps to two subprocess runs: one job run
and one `--help` (which exits before any Spark session starts).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
JOB = "orders_enriched"
DATA = ROOT / "pipelines" / "data" / "orders"
PYTHON = ROOT / ".venv" / "bin" / "python"


def _run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")}  # a fresh, local job
    python = str(PYTHON) if PYTHON.exists() else sys.executable
    return subprocess.run(
        [python, f"generated/{JOB}.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout,
    )


def _expected_rows() -> list[dict]:
    """What pipelines/orders_enriched.yaml makes of its data files: internal fields dropped, amount renamed to
    total, topic and origin inserted (no record's topic 'orders' matches the test-topic filter)."""
    rows = []
    for part in sorted(DATA.glob("*.json")):
        for line in part.read_text(encoding="utf-8").splitlines():
            if line.strip():
                v = json.loads(line, parse_float=Decimal)
                rows.append({
                    "order_id": v["order_id"], "customer": v["customer"], "total": v["amount"],
                    "kafka_topic": "orders", "origin": "web-shop",
                })
    return rows


def test_batch_job_runs_as_a_script(tmp_path):
    sink = tmp_path / "out"
    done = _run("--sink-path", str(sink), "--master", "local[1]")
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-5000:]}"

    expected = _expected_rows()
    assert expected, f"no data rows under {DATA}"
    counts = re.findall(
        rf"^\[{JOB}\] batch: in=(\d+) written=(\d+) filtered=(\d+) superseded=(\d+) dead_lettered=(\d+)$", done.stdout, re.MULTILINE
    )
    assert counts == [(str(len(expected)), str(len(expected)), "0", "0", "0")], done.stdout

    written = [
        json.loads(line, parse_float=Decimal)
        for part in sorted(sink.glob("part-*.json"))
        for line in part.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    key = lambda r: r["order_id"]  # noqa: E731
    assert sorted(written, key=key) == sorted(expected, key=key)
    assert all(list(r) == ["order_id", "customer", "total", "kafka_topic", "origin"] for r in written), written


def test_help_names_the_spark_packages():
    done = _run("--help", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {JOB}"), done.stdout
    assert re.search(r"^Spark packages: \S", done.stdout, re.MULTILINE), done.stdout
    for flag in ("--checkpoint", "--trigger", "--master", "--conf", "--bootstrap-servers", "--sink-path"):
        assert flag in done.stdout
