"""Record tests of the transform library: every pipeline under tests/transforms/pipelines/ (and pipelines/)
runs its `tests:` through its generated job on the shared Spark session, and its physical plan stays native.

Adding a case is adding a YAML file (or a test case inside one).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from compiler.project import build_all, generate_all
from compiler.testing.runner import load_job, run_tests
from native_plan import batch_frame, python_operators

pytestmark = pytest.mark.spark
HERE = Path(__file__).resolve().parent
FILES = sorted(HERE.parent.glob("*/pipelines/**/*.yaml"))  # tests/transforms/pipelines, tests/connectors/pipelines


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_pipeline_records(path: Path, spark, tmp_path):
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
