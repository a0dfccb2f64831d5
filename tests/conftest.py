"""Shared fixtures: one local SparkSession for the whole run, and helpers to compile pipelines from text."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test run (local[2], 2 shuffle partitions, UTC, ANSI)."""
    from compiler.emit import spark_version
    from compiler.testing.session import local_session

    version = spark_version()
    packages = [f"org.apache.spark:spark-avro_2.13:{version}", f"org.apache.spark:spark-sql-kafka-0-10_2.13:{version}"]
    session = local_session("pipec-tests", packages)
    yield session
    session.stop()


@pytest.fixture
def compile_text(tmp_path):
    """Compile one pipeline given as YAML text; returns (Result, {filename: source}) or raises CompileError."""
    from compiler.project import build_all, generate_all

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

    from compiler.project import build_all, generate_all
    from compiler.testing.runner import batch_frame, load_job, python_operators, run_tests

    def check(path: Path) -> None:
        result = build_all([str(path)])
        result.diags.check()
        files = generate_all(result)
        out = io.StringIO()
        ok = run_tests(result.compiled, files, spark=spark, out=out)
        assert ok, out.getvalue()
        assert "0 failed" in out.getvalue()

        (compiled,) = result.compiled
        job_file = tmp_path / f"{compiled.pipeline.name}.py"
        job_file.write_text(files[job_file.name], encoding="utf-8")
        job = load_job(job_file)
        case = next(c for c in compiled.pipeline.tests if c.expect_error is None)
        (tmp_path / "plan").mkdir()
        assert python_operators(batch_frame(spark, job, compiled, case, tmp_path / "plan")) == []

    return check
