"""A checked-in generated job run as users run it: `python generated/NAME.py ...` in its own process (SPEC section 1).

This starts a second JVM (the job's real entry point), so the module keeps to few subprocess runs: one job run,
one `--help` (which exits before any Spark session starts) and one run refused at start.
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


def _run(cwd: Path, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """The job run as a script from `cwd` (a test's own folder: Spark 4.0.0 leaves artifacts/ in its working
    directory, SPARK-52396)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")}  # a fresh, local job
    python = str(PYTHON) if PYTHON.exists() else sys.executable
    return subprocess.run(
        [python, str(ROOT / "generated" / f"{JOB}.py"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _expected_rows() -> list[dict]:
    """What pipelines/orders_enriched.yaml makes of its data files: internal fields dropped, amount renamed to
    total, topic and origin inserted (no record's topic 'orders' matches the test-topic filter)."""
    rows = []
    for part in sorted(DATA.glob("*.json")):
        for line in part.read_text(encoding="utf-8").splitlines():
            if line.strip():
                v = json.loads(line, parse_float=Decimal)
                rows.append(
                    {
                        "order_id": v["order_id"],
                        "customer": v["customer"],
                        "total": v["amount"],
                        "kafka_topic": "orders",
                        "origin": "web-shop",
                    }
                )
    return rows


def test_batch_job_runs_as_a_script(tmp_path):
    sink = tmp_path / "out"
    done = _run(tmp_path, "--source-path", str(DATA), "--sink-path", str(sink), "--master", "local[1]")
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr[-5000:]}"

    expected = _expected_rows()
    assert expected, f"no data rows under {DATA}"
    counts = re.findall(
        rf"^\[{JOB}\] batch: in=(\d+) written=(\d+) filtered=(\d+) superseded=(\d+) dead_lettered=(\d+)$",
        done.stdout,
        re.MULTILINE,
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


def test_help_names_the_spark_packages(tmp_path):
    done = _run(tmp_path, "--help", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: {JOB}"), done.stdout
    assert re.search(r"^Spark packages for this pyspark \(\d+\.\d+\.\d+\):\n  none$", done.stdout, re.MULTILINE), (
        done.stdout
    )
    assert "ignored under spark-submit, whose --master stands" in " ".join(done.stdout.split())
    for flag in ("--master", "--conf", "--verbose", "--source-path", "--sink-path"):
        assert flag in done.stdout
    for flag in ("--checkpoint", "--trigger", "--bootstrap-servers", "--spark-packages-version"):
        assert flag not in done.stdout  # a files -> files batch job without connectors reads none of them


def test_a_connector_of_another_spark_line_fails_at_start_in_one_line(tmp_path):
    """A Kafka connector of another line (here 4.1.1 on 4.2) fails mid-stream at run time; the job refuses it at
    start and says what to pass. (The broker address is never reached.)"""
    import pyspark

    done = subprocess.run(
        [
            str(PYTHON) if PYTHON.exists() else sys.executable,
            str(ROOT / "generated" / "clicks_traced.py"),
            "--spark-packages-version",
            "4.1.1",
            "--bootstrap-servers",
            "127.0.0.1:9",
            "--checkpoint",
            str(tmp_path / "ck"),
            "--sink-path",
            str(tmp_path / "out"),
        ],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")},
        capture_output=True,
        text=True,
        timeout=600,
    )
    line = pyspark.__version__.rsplit(".", 1)[0]
    assert done.returncode == 1, done.stderr[-3000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "clicks_traced: connector org.apache.spark:spark-sql-kafka-0-10_2.13:4.1.1 does not match "
        f"Spark {pyspark.__version__}: pass --spark-packages-version {line}.N"
    ), last
    assert "Traceback" not in done.stderr


def test_a_source_that_cannot_load_fails_in_one_line(spark, tmp_path, capsys):
    """read_source's failure (a missing folder) is the job's one-line failure, not a traceback."""
    from pipec.testing.runner import load_job

    job = load_job(ROOT / "generated" / f"{JOB}.py")
    assert job.main(["--source-path", str(tmp_path / "missing"), "--sink-path", str(tmp_path / "out")]) == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.startswith(f"{JOB}: failed: ") and "missing" in last, last
