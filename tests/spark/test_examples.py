"""Every example pipeline under pipelines/ compiles, its job imports, its own `tests:` pass, and generated/ is current."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pipec.project.batch import compile_all, stale
from pipec.project.driver import SUFFIXES, build_all, generate_all
from pipec.testing.runner import load_job, run_tests

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
PIPELINES = sorted(p for p in (ROOT / "pipelines").rglob("*") if p.suffix in SUFFIXES and p.is_file())

# The seams every generated job offers (SPEC section 1).
SEAMS = ("read_source", "transform", "write_sink", "main", "parse_args")


@pytest.fixture
def in_repo(monkeypatch):
    """Compile from the repository root, as `pipec compile` in CI does (headers name paths relative to it)."""
    monkeypatch.chdir(ROOT)


def test_there_are_examples():
    assert PIPELINES, f"no example pipelines under {ROOT / 'pipelines'}"


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda p: p.relative_to(ROOT / "pipelines").as_posix())
def test_example_record_tests_pass(pipeline: Path, spark, tmp_path, in_repo):
    result = build_all([str(pipeline)])
    files = generate_all(result)  # raises CompileError (with every diagnostic) if the example is invalid
    assert len(result.compiled) == 1 and len(files) == 1
    (compiled,) = result.compiled
    ((name, source),) = files.items()
    assert name == f"{compiled.pipeline.name}.py"

    job_file = tmp_path / name
    job_file.write_text(source, encoding="utf-8")
    job = load_job(job_file)
    missing = [seam for seam in SEAMS if not callable(getattr(job, seam, None))]
    assert not missing, f"{name} lacks the job seams {missing}"

    assert compiled.pipeline.tests, f"{pipeline.name} has no tests: every example should carry its own"
    out = io.StringIO()
    passed = run_tests(result.compiled, files, spark=spark, out=out)
    report = out.getvalue()
    assert passed, f"record tests of {pipeline.name} failed:\n{report}"
    assert report.count("PASS ") == len(compiled.pipeline.tests), report


def test_generated_folder_is_current(in_repo):
    batch = compile_all([str(ROOT / "pipelines")])
    assert not batch.diags.errors
    problems = stale(ROOT / "generated", batch.jobs)
    assert not problems, "generated/ is stale; run `pipec compile pipelines/`:\n" + "\n".join(problems)
