"""The one error-fixture harness. Every `<case>.yaml` under tests/cli/fixtures/errors (the language, sources,
sinks, tests) and tests/transforms/errors (the transform library) is an invalid pipeline; `<case>.expected` holds
the exact `file:line:col: error[CODE]` prefix of every diagnostic `pipec validate` prints for it, in the CLI's
order, those without a location included (plus the `  hint: ...` lines, compared only when the .expected file
lists any).

Adding a case is adding files: a missing .expected fails and prints what it would contain, and
`PIPEC_UPDATE_GOLDEN=1` writes it (and rewrites stale ones; review the diff). A case that shows a known bug has
`<case>.xfail` (diagnostics wrong or misplaced) or `<case>.crash` (pipec raises), holding the reason; .expected
then holds what pipec should print, and is never rewritten.
"""

from __future__ import annotations

import json
import os

import pytest
from cli_harness import ERRORS, HINT, ROOT, TRANSFORM_ERRORS, case_marks, diagnostic_lines, rel, run_cli, snapshot

CASES = sorted(ERRORS.glob("*.yaml")) + sorted(TRANSFORM_ERRORS.glob("*.yaml"))
IDS = [f"{'cli' if c.parent == ERRORS else 'transforms'}/{c.stem}" for c in CASES]
UPDATE = os.environ.get("PIPEC_UPDATE_GOLDEN") == "1"


def test_there_are_enough_error_cases():
    assert len(CASES) >= 25


@pytest.mark.parametrize("case", [pytest.param(c, id=i, marks=case_marks(c)) for c, i in zip(CASES, IDS)])
def test_validate_reports_each_mistake_at_its_location(case, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    run = run_cli(["validate", rel(case)], capsys)
    assert "Traceback" not in run.text, run.text

    expected_file = case.with_suffix(".expected")
    wants_hints = expected_file.exists() and any(
        line.startswith(HINT) for line in expected_file.read_text(encoding="utf-8").splitlines()
    )
    got = diagnostic_lines(run.err, hints=wants_hints)
    known_bug = case.with_suffix(".xfail").exists() or case.with_suffix(".crash").exists()
    if UPDATE and not known_bug and got and run.code == 2:
        expected_file.write_text("\n".join(got) + "\n", encoding="utf-8")
    if not expected_file.exists():
        pytest.fail(f"missing {rel(expected_file)}; it would contain:\n" + "\n".join(got) + "\n", pytrace=False)
    expected = [line.rstrip() for line in expected_file.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert got == expected
    assert run.code == 2
    assert any("error[" in line for line in got), "an error case must report at least one error"


@pytest.mark.parametrize("command", ["compile", "check", "explain"])
@pytest.mark.parametrize(
    "case", [pytest.param(c, id=i, marks=case_marks(c, crash_only=True)) for c, i in zip(CASES, IDS)]
)
def test_no_command_shows_a_traceback_or_writes_for_an_invalid_file(case, command, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "generated"
    args = [command, rel(case), "--format", "json"]
    if command != "explain":
        args += ["--out", out]
    run = run_cli(args, capsys)
    assert "Traceback" not in run.text, run.text
    assert run.code == 2
    diagnostics = json.loads(run.out)
    if command == "explain":  # one document: the diagnostics and the (here no) pipelines
        assert diagnostics["pipelines"] == []
        diagnostics = diagnostics["diagnostics"]
    assert [d["code"] for d in diagnostics if d["severity"] == "error"], "an invalid file gives at least one error"
    assert all(d["loc"] is None or d["loc"]["file"] == rel(case) for d in diagnostics)
    assert snapshot(out) == {}
    assert not out.exists()
