"""The job templates jinja2 compiles are kept in pipec's cache folder, so a cold compile loads them instead of
compiling them again; the job is the same either way, and without a cache folder nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipec.emit import job

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_environment():
    job.template_environment.cache_clear()
    yield
    job.template_environment.cache_clear()


def test_compiled_templates_are_cached_and_give_the_same_job(compile_text, fresh_environment, monkeypatch, tmp_path):
    text = (ROOT / "pipelines" / "payments_cleared.yaml").read_text(encoding="utf-8")
    monkeypatch.setenv("PIPEC_CACHE_DIR", str(tmp_path / "cache"))
    _, compiled = compile_text(text, "payments_cleared.yaml")
    cached = sorted(p.name for p in (tmp_path / "cache" / "templates").iterdir())
    assert cached and all(name.startswith("__jinja2_") for name in cached)
    job.template_environment.cache_clear()  # a new process: the templates come from the cache
    _, again = compile_text(text, "payments_cleared.yaml")
    assert again == compiled
    assert sorted(p.name for p in (tmp_path / "cache" / "templates").iterdir()) == cached


def test_no_cache_folder_no_template_cache(compile_text, fresh_environment, monkeypatch, tmp_path):
    monkeypatch.setenv("PIPEC_CACHE_DIR", "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert job.template_environment().bytecode_cache is None
    text = (ROOT / "pipelines" / "orders_enriched.yaml").read_text(encoding="utf-8")
    _, compiled = compile_text(text, "orders_enriched.yaml")
    assert "def transform(" in compiled["orders_enriched.py"]
    assert not list(tmp_path.rglob("__jinja2_*"))
