"""ruff writes the jobs (compiler/emit/formatter.py); black stays the contract: every job must be exactly what black
(-l 100 -t py310) writes for it: the checked-in generated/ jobs and a synthetic corpus of every transform family at
many lengths and literals (bench/synthetic.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.synthetic import pipeline_yaml
from black_style import is_formatted
from pipec.project.driver import build_all, generate_all

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("job", sorted((ROOT / "generated").glob("*.py")), ids=lambda p: p.name)
def test_checked_in_job_is_blacks_output(job):
    assert is_formatted(job.read_text(encoding="utf-8"))


def test_synthetic_corpus_is_blacks_output(tmp_path):
    for steps in (1, 2, 5, 13, 20, 37, 50):
        for variant in (0, 7, 123456789):
            (tmp_path / f"s{steps}_{variant}.yaml").write_text(pipeline_yaml(f"s{steps}_{variant}", steps, variant), encoding="utf-8")
    jobs = generate_all(build_all([str(tmp_path)]))
    assert len(jobs) == 21
    unstable = [name for name, source in jobs.items() if not is_formatted(source)]
    assert unstable == []
