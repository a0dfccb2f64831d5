"""Shared fixtures: one local SparkSession for the whole run, helpers to compile pipelines from text, and a
standalone Spark cluster (master + worker) and a Spark Connect server on loopback, started by the project's scripts
(scripts/spark-cluster, scripts/spark-connect) from the running Python's pyspark, once per test session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from registry_service import schema_registry_state_dir, schema_registry_url  # noqa: F401 (session fixtures)

ROOT = Path(__file__).resolve().parent.parent


# Markers of tests that start a JVM (the Kafka broker, a registry, a cluster, Spark Connect, Kafka Connect's classes,
# table formats) or a browser, and of the few Spark-free ones that take tens of seconds (`slow`): each also carries
# `spark`, so `-m "not spark"` is the fast lane (README).
FULL_SUITE_ONLY = frozenset({"kafka", "registry", "cluster", "connect", "differential", "table", "browser", "slow"})


def pytest_configure(config):
    """No job cache unless a test sets one (tests/cli/test_cli_compile_cache.py): nothing written to ~/.cache."""
    os.environ.setdefault("PIPEC_CACHE_DIR", "")
    for name in (
        "table: writes and reads Delta Lake or Iceberg tables on a local Spark",
        "browser: drives a headless browser",
        "slow: a Spark-free test of tens of seconds (subprocesses, thousands of cases): not in the fast lane",
    ):
        config.addinivalue_line("markers", name)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every test of the heavy lane is marked `spark`, before `-m` selects."""
    for item in items:
        if FULL_SUITE_ONLY & {mark.name for mark in item.iter_markers()}:
            item.add_marker(pytest.mark.spark)


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test run (local[2], 2 shuffle partitions, UTC, ANSI)."""
    import pyspark
    from pipec.spark_versions import AVRO, KAFKA, PACKAGES_VERSION_ENV, coordinates
    from pipec.testing.session import local_session, stop_local_session, table_settings

    # the connectors of the installed Spark's line, chosen as a generated job chooses them; PIPEC_TEST_CONNECTORS=""
    # starts without them (scripts/compat, for a line whose connectors do not resolve: the files tests still run)
    packages = coordinates(pyspark.__version__, (AVRO, KAFKA), os.environ.get(PACKAGES_VERSION_ENV))
    if os.environ.get("PIPEC_TEST_CONNECTORS") == "":
        packages = []
    # the table formats this line has (Delta Lake, Iceberg): real tables in temporary folders
    tables, conf = table_settings(pyspark.__version__) if os.environ.get("PIPEC_TEST_TABLES") != "" else ([], {})
    session = local_session("pipec-tests", packages + tables, conf)
    yield session
    stop_local_session(session)


@pytest.fixture
def compile_text(tmp_path):
    """Compile one pipeline given as YAML text; returns (Result, {filename: source}) or raises CompileError."""
    from pipec.project.driver import build_all, generate_all

    def run(text: str, name: str = "pipeline.yaml"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = build_all([str(path)])
        result.diags.check()
        return result, generate_all(result)

    return run


@pytest.fixture
def check_pipeline_records(spark, tmp_path):
    """Run a pipeline file's `tests:` through its generated job (as `pipec test` does) and check that the job's
    physical plan is native; fails with the runner's report."""
    import io

    from native_plan import batch_frame, python_operators
    from pipec.project.driver import build_all, generate_all
    from pipec.testing.runner import load_job, run_tests

    def check(path: Path) -> None:
        result = build_all([str(path)])
        result.diags.check()
        files = generate_all(result)
        out = io.StringIO()
        ok = run_tests(result.compiled, files, spark=spark, out=out)
        assert ok, out.getvalue()
        cases = sum(len(c.pipeline.tests) for c in result.compiled)
        assert cases and out.getvalue().splitlines()[-1] == f"{cases} passed, 0 failed", out.getvalue()

        (compiled,) = result.compiled
        job_file = tmp_path / f"{compiled.pipeline.name}.py"
        job_file.write_text(files[job_file.name], encoding="utf-8")
        job = load_job(job_file)
        case = next(c for c in compiled.pipeline.tests if c.expect_error is None)
        (tmp_path / "plan").mkdir()
        assert python_operators(batch_frame(spark, job, compiled, case, tmp_path / "plan")) == []

    return check


START_TIMEOUT_S = 600  # the first Connect start downloads the connectors
STOP_TIMEOUT_S = 120


def _script(name: str, command: str, state: Path, variable: str, timeout: float) -> str:
    env = {**os.environ, "PIPEC_PYTHON": sys.executable, variable: str(state)}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / name), command],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
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
