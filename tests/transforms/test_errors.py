"""Compile-time errors of the transform library: each tests/transforms/errors/<case>.yaml lists the
diagnostics it must produce in `<case>.expected` (one `line:col: error[CODE]` per line).

Adding a case is adding two files; a missing .expected file fails and shows what it would hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.project import build_all

HERE = Path(__file__).resolve().parent
CASES = sorted((HERE / "errors").glob("*.yaml"))


def diagnostics(path: Path) -> str:
    result = build_all([str(path)])
    lines = [f"{d.loc.line}:{d.loc.col}: {d.severity}[{d.code}]" for d in result.diags.items if d.loc]
    return "\n".join(sorted(lines, key=lambda s: tuple(int(x) for x in s.split(":")[:2]))) + "\n"


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_compile_errors(path: Path):
    got = diagnostics(path)
    expected_file = path.with_suffix(".expected")
    assert expected_file.exists(), f"missing {expected_file.name}; it would hold:\n{got}"
    assert got == expected_file.read_text(encoding="utf-8")
    assert "error[" in got, "an error case must produce at least one error"
