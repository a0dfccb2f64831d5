"""compiler/emit/job_templates.py, the job templates translated into Python (compiler/emit/template_translator.py), is current
and renders exactly what jinja2 renders from the templates, for every pipeline of the repository that compiles;
a stale module falls back to jinja2 (tests/cli/test_cold_imports.py: a cold compile never imports it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipec.emit import job as emit, job_templates, template_translator as template_code
from pipec.emit.format import layout
from pipec.diagnostics import Collector
from pipec.project.driver import build_file

ROOT = Path(__file__).resolve().parents[2]
PIPELINES = sorted([*ROOT.glob("pipelines/*.yaml"), *ROOT.glob("tests/**/*.yaml"), *ROOT.glob("examples/**/*.yaml")])


def test_the_translated_module_is_current():
    assert template_code.main(["--check"]) == 0, "run: python -m pipec.emit.template_translator --write"


def _compiled(path: Path):
    diags = Collector()
    try:
        built = build_file(path, diags)
    except Exception:  # noqa: BLE001 - a fixture that is not a pipeline at all
        return None
    return built[0] if built and not diags.errors else None


def test_every_pipeline_renders_as_jinja2_renders_it(monkeypatch):
    environment = emit.template_environment()
    used: set[str] = set()
    for name, function in job_templates.TEMPLATES.items():
        monkeypatch.setitem(job_templates.TEMPLATES, name, lambda c, o, f, n=name, g=function: (used.add(n), g(c, o, f)))
    rendered = 0
    for path in PIPELINES:
        compiled = _compiled(path)
        if compiled is None:
            continue
        ctx = emit.job_context(compiled)
        expected = environment.get_template("job.py.j2").render(**ctx)
        assert job_templates.render("job.py.j2", ctx, layout.mark) == expected, path
        rendered += 1
    assert rendered >= 50, rendered
    assert used == set(job_templates.TEMPLATES), f"no pipeline renders {set(job_templates.TEMPLATES) - used}"


@pytest.mark.parametrize("source, what", [
    ("{{ name | upper }}", "Filter"),
    ("{% set x = 1 %}", "Assign"),
    ("{% for a in b %}{{ loop.index }}{% else %}none{% endfor %}", "For"),
    ("{{ items[0] }}", "Getitem"),
    ("{% macro m() %}{% endmacro %}", "Macro"),
])
def test_jinja_beyond_the_translated_part_is_refused_with_its_place(source, what):
    with pytest.raises(template_code.UnsupportedTemplate, match=rf"templates/extra\.j2:1: .*{what}"):
        template_code.translate(emit.template_environment(), "extra.j2", source)


def test_translation_keeps_jinja_semantics_of_scopes_and_attributes():
    env = emit.template_environment()
    source = (
        "{% for line in lines %}{% with line=line ~ '!' if false else line, n=obj.size %}"
        "[{{ line }}:{{ n }}]{% endwith %}{% endfor %}{{ d.key }}{{ 'a' if x != 'b' and not y or z else 'c' }}"
    )
    with pytest.raises(template_code.UnsupportedTemplate):  # `~` is not translated
        template_code.translate(env, "t.j2", source)
    source = source.replace("line ~ '!' if false else line", "line")
    namespace: dict = {}
    exec(template_code.translate(env, "t.j2", source).replace("def _t(", "def render_t("), namespace)
    namespace["_attribute"] = job_templates._attribute

    class Obj:
        size = 3

    ctx = {"lines": ["p", "q"], "obj": Obj(), "d": {"key": "K"}, "x": "b", "y": False, "z": True}
    out: list[str] = []
    namespace["render_t"](ctx, out, layout.mark)
    expected = env.from_string(source).render(**ctx)
    assert "".join(out) == expected == "[<p>:<3>][<q>:<3>]<K><a>".replace("<", layout.MARK).replace(">", "")


def test_a_stale_module_falls_back_to_jinja2(monkeypatch):
    compiled = _compiled(min(ROOT.glob("pipelines/*.yaml")))
    fresh = emit.generate(compiled).source
    monkeypatch.setattr(job_templates, "TEMPLATES_SHA256", "stale")
    emit._translated_templates.cache_clear()
    try:
        assert emit._translated_templates() is None
        assert emit.generate(compiled).source == fresh
    finally:
        emit._translated_templates.cache_clear()
