"""Session fixtures of the differential tests: the Kafka jars (fetched on first use into a cache outside git),
every case's records, Kafka's results for all of them from ONE JVM run, and pipec's from its generated jobs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FETCH = ROOT / "scripts" / "fetch-kafka-jars"
if str(HERE) not in sys.path:  # the helper modules beside this file
    sys.path.insert(0, str(HERE))

from diff_run import STATS  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "differential: compares pipec with Kafka Connect's own transforms on a JVM")


def pytest_terminal_summary(terminalreporter):
    if not STATS["cases"]:
        return
    timings = ", ".join(f"{k} {v:.1f}s" for k, v in STATS["timings"].items())
    documented = ", ".join(f"{k} x{n}" for k, n in sorted(STATS["documented"].items())) or "none"
    terminalreporter.write_line(
        f"differential: {STATS['cases']} cases run, {STATS['compared']} records compared "
        f"({STATS['records']} generated) in {STATS['spark_jobs']} Spark jobs, {STATS['mismatches']} undocumented "
        f"mismatches; "
        f"documented differences seen: {documented}; {timings}"
    )


@pytest.fixture(scope="session")
def kafka_classpath() -> str:
    """The classpath of Kafka's jars, downloaded (and checksummed) on first use. Fails, never skips, without
    Java or the network: these tests are the only check against Kafka itself."""
    if shutil.which("java") is None:
        pytest.fail("differential tests need Java 17+ on PATH (`java` not found)", pytrace=False)
    modules = subprocess.run(["java", "--list-modules"], capture_output=True, text=True).stdout
    if "jdk.compiler@" not in modules:  # `java File.java` compiles the harness in memory
        pytest.fail(
            "differential tests run SmtHarness.java with `java File.java`, which needs the jdk.compiler "
            "module (install a JDK, e.g. openjdk-17-jdk-headless)",
            pytrace=False,
        )
    started = time.monotonic()
    proc = subprocess.run([str(FETCH)], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"scripts/fetch-kafka-jars failed (network?):\n{proc.stderr}", pytrace=False)
    STATS["timings"]["jars"] = time.monotonic() - started
    return proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="session")
def case_records() -> dict[str, list[dict]]:
    """Every case's records, drawn once (deterministically)."""
    from diff_cases import CASES
    from diff_records import draw_records

    started = time.monotonic()
    records = {case.id: draw_records(case) for case in CASES}
    STATS["timings"]["generate"] = time.monotonic() - started
    STATS["records"] = sum(map(len, records.values()))
    return records


@pytest.fixture(scope="session")
def kafka_results(kafka_classpath, case_records) -> dict[str, dict]:
    """id -> SmtHarness's answer, for every case, from one JVM."""
    from diff_cases import CASES
    from diff_records import harness_document
    from diff_run import run_harness

    started = time.monotonic()
    documents = [harness_document(case, case_records[case.id]) for case in CASES]
    try:
        answers = run_harness(kafka_classpath, documents)
    except Exception as exc:  # a broken harness is a failure of every case
        pytest.fail(str(exc), pytrace=False)
    STATS["timings"]["jvm"] = time.monotonic() - started
    return answers


@pytest.fixture(scope="session")
def pipec_results(request, spark, kafka_results, case_records, tmp_path_factory):
    """id -> pipec's side of every selected case whose transforms are all registered (run from a few threads)."""
    from diff_cases import CASES
    from diff_run import kafka_outcomes, run_pipec
    from pipec.transforms import REGISTRY

    started = time.monotonic()
    here = Path(__file__).resolve().parent
    selected = {
        item.callspec.params["case"].id
        for item in request.session.items
        if hasattr(item, "callspec")
        and "case" in item.callspec.params
        and Path(str(item.fspath)).resolve().parent == here
    }
    cases = [c for c in CASES if c.id in selected and c.transforms() <= set(REGISTRY.transforms)]
    kafka = {
        c.id: kafka_outcomes(kafka_results[c.id], case_records[c.id])
        for c in cases
        if "config_error" not in kafka_results[c.id]
    }
    workers = int(os.environ.get("PIPEC_DIFFERENTIAL_THREADS", min(4, os.cpu_count() or 1)))
    results = run_pipec(spark, cases, case_records, kafka, tmp_path_factory.mktemp("differential"), workers)
    STATS["timings"]["pipec"] = time.monotonic() - started
    return results
