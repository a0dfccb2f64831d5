"""A standalone Spark cluster (master + worker) and a Spark Connect server on loopback, started by the project's
scripts (scripts/spark-cluster, scripts/spark-connect) from the running Python's pyspark, once per test session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 600  # the first Connect start downloads the connectors
STOP_TIMEOUT_S = 120


def _script(name: str, command: str, state: Path, variable: str, timeout: float) -> str:
    env = {**os.environ, "PIPEC_PYTHON": sys.executable, variable: str(state)}
    done = subprocess.run(["bash", str(ROOT / "scripts" / name), command], env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"scripts/{name} {command} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout.strip()


def _service(name: str, variable: str, tmp_path_factory):
    state = tmp_path_factory.mktemp(name)
    address = _script(name, "start", state, variable, START_TIMEOUT_S)
    try:
        yield address, state
    finally:
        _script(name, "stop", state, variable, STOP_TIMEOUT_S)


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory):
    """(master URL, state dir) of a running master and worker; the worker's apps are under state/work."""
    yield from _service("spark-cluster", "PIPEC_SPARK_CLUSTER_DIR", tmp_path_factory)


@pytest.fixture(scope="session")
def spark_connect(tmp_path_factory):
    """(sc:// address, state dir) of a running Spark Connect server with the connectors of its Spark line."""
    yield from _service("spark-connect", "PIPEC_SPARK_CONNECT_DIR", tmp_path_factory)
