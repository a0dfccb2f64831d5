"""A quiet start (issue 27): a job started with `python` says one line on stderr while its JVM resolves connectors
and starts ("resolving spark-avro 4.2.0 ... done in 1.2 s"); Ivy's resolution report, its proxy and repository
warnings and Spark's log4j start-up lines go to a log instead, or to the terminal with --verbose. `pipec test`
likewise. Real runs, as users start them: each test starts a JVM of its own (three in this module)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / ".venv" / "bin"
# a files job with an avro sink: its JVM resolves spark-avro from Maven Central (or Ivy's cache) through Ivy
PIPELINE = """\
version: 1
name: quiet_avro
mode: batch
source:
  connector: files
  path: in
  format: json
  columns:
    - {name: id, type: BIGINT}
sink:
  connector: files
  path: out
  format: avro
tests:
  - name: passes through
    given: [{value: {id: 1}}]
    expect: [{value: {id: 1}}]
"""
ONE_LINE = r"(resolving spark-avro \S+|starting Spark \S+) \.\.\. done in \d+\.\d s\n"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_GATEWAY")}  # a fresh, local JVM
    env["PIPEC_SPARK_LOG"] = str(tmp_path / "spark.log")
    return env


def _job(tmp_path: Path) -> Path:
    (tmp_path / "quiet_avro.yaml").write_text(PIPELINE, encoding="utf-8")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "part.json").write_text('{"id": 1}\n{"id": 2}\n', encoding="utf-8")
    pipec = [str(BIN / "pipec")] if (BIN / "pipec").exists() else [sys.executable, "-m", "pipec"]
    subprocess.run(
        [*pipec, "compile", "quiet_avro.yaml", "--out", "gen"], cwd=tmp_path, check=True, capture_output=True
    )
    return tmp_path / "gen" / "quiet_avro.py"


def _python() -> str:
    return str(BIN / "python") if (BIN / "python").exists() else sys.executable


def test_a_job_says_one_line_while_spark_starts(tmp_path):
    job = _job(tmp_path)
    done = subprocess.run(
        [_python(), str(job), "--master", "local[1]"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    assert re.fullmatch(r"resolving spark-avro \S+ \.\.\. done in \d+\.\d s\n", done.stderr), done.stderr
    assert re.fullmatch(r"\[quiet_avro\] batch: in=2 written=2 filtered=0 superseded=0 dead_lettered=0\n", done.stdout)
    log = (tmp_path / "spark.log").read_text(encoding="utf-8", errors="replace")
    assert ":: resolving dependencies ::" in log and "spark-avro" in log  # Ivy's report went here


def test_verbose_shows_the_jvm_output(tmp_path):
    job = _job(tmp_path)
    done = subprocess.run(
        [_python(), str(job), "--master", "local[1]", "--verbose"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert ":: resolving dependencies ::" in done.stderr and "resolving spark-avro" not in done.stderr
    assert not (tmp_path / "spark.log").exists()


def test_pipec_test_says_one_line_while_spark_starts(tmp_path):
    _job(tmp_path)
    pipec = [str(BIN / "pipec")] if (BIN / "pipec").exists() else [sys.executable, "-m", "pipec"]
    done = subprocess.run(
        [*pipec, "test", "quiet_avro.yaml"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"stdout:\n{done.stdout}\nstderr:\n{done.stderr[-3000:]}"
    assert re.fullmatch(ONE_LINE, done.stderr), done.stderr
    assert done.stdout == "PASS quiet_avro.yaml:15 passes through\n1 passed, 0 failed\n", done.stdout
