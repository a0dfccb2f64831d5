"""The session's Schema Registry: one real Confluent-compatible registry per test run (scripts/registry), shared by
tests/schema_registry and the Kafka end-to-end tests (tests/conftest.py imports the fixtures).

`schema_registry_url` starts Apicurio Registry (in-memory storage) in a private state dir on 127.0.0.1 and
stops it at the end of the session; its value is the base URL of Confluent's REST API, what
confluent-kafka's SchemaRegistryClient takes as `url`. Set PIPEC_SCHEMA_REGISTRY_URL to use a registry
that is already running instead. The registry is fetched from Maven Central on first use and cached in
$PIPEC_CACHE.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "registry"
START_TIMEOUT_S = 900  # the first start downloads ~150 MB from Maven Central before it starts
STOP_TIMEOUT_S = 60


def run_registry_script(command: str, state_dir: str, timeout: float = STOP_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run `scripts/registry COMMAND` for the registry whose state lives in state_dir."""
    return subprocess.run(
        ["bash", str(SCRIPT), command],
        env={**os.environ, "PIPEC_REGISTRY_DIR": state_dir},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start_registry(state_dir: str) -> str:
    """Start the registry (or find it running) and return its Confluent API URL."""
    result = run_registry_script("start", state_dir, START_TIMEOUT_S)
    sys.stderr.write(result.stderr)
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise RuntimeError(f"scripts/registry start failed (exit {result.returncode}):\n{result.stderr.strip()}")
    return lines[-1].strip()


def stop_registry(state_dir: str) -> None:
    """Stop the registry of state_dir and delete its state; no-op if none runs."""
    result = run_registry_script("stop", state_dir)
    if result.returncode != 0:
        raise RuntimeError(f"scripts/registry stop failed (exit {result.returncode}):\n{result.stderr.strip()}")


@pytest.fixture(scope="session")
def schema_registry_state_dir():
    """The session registry's state dir (None with PIPEC_SCHEMA_REGISTRY_URL: an external registry)."""
    if os.environ.get("PIPEC_SCHEMA_REGISTRY_URL"):
        yield None
        return
    path = tempfile.mkdtemp(prefix="pipec-registry-")
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def schema_registry_url(schema_registry_state_dir):
    """Base URL of the session registry's Confluent API: started once, stopped at the end."""
    external = os.environ.get("PIPEC_SCHEMA_REGISTRY_URL")
    if external:
        yield external
        return
    url = start_registry(schema_registry_state_dir)
    try:
        yield url
    finally:
        stop_registry(schema_registry_state_dir)
