"""Helpers for the CLI tests: run `pipec` in-process, pick diagnostic prefixes out of its output.

Nothing here starts Spark or imports pyspark.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
ERRORS = FIXTURES / "errors"
TRANSFORM_ERRORS = ROOT / "tests" / "transforms" / "errors"  # the transform library's cases, same harness
VALID = FIXTURES / "valid"
EXAMPLE = ROOT / "pipelines" / "orders_enriched.yaml"

# `file:line:col: error[CODE]` (the location is absent for errors about no file, e.g. a missing path).
DIAGNOSTIC = re.compile(
    r"^(?P<prefix>(?:(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): )?(?P<severity>error|warning)\[(?P<code>[A-Z]+\d+)\])"
)
HINT = "  hint: "


@dataclass
class Run:
    """One in-process `pipec` invocation."""

    code: int | None
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


def run_cli(args: list[str], capsys: pytest.CaptureFixture) -> Run:
    """`pipec.cli.main(args)`; an exception escaping main is shown as the traceback a user would see."""
    from pipec.cli import main

    capsys.readouterr()  # drop anything printed before
    crash = ""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception:
        code = None
        crash = traceback.format_exc()
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err + crash)


def diagnostic_lines(output: str, hints: bool = False) -> list[str]:
    """The `file:line:col: severity[CODE]` prefix of every diagnostic line, in printed order (and hint lines)."""
    lines = []
    for line in output.splitlines():
        m = DIAGNOSTIC.match(line)
        if m:
            lines.append(m.group("prefix"))
        elif hints and line.startswith(HINT):
            lines.append(line.rstrip())
    return lines


def rel(path: Path) -> str:
    """A path as the CLI shows it when run from the repository root."""
    return path.resolve().relative_to(ROOT).as_posix()


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (hidden ones included) -> its bytes."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def case_marks(case: Path, crash_only: bool = False) -> list:
    """Known-bug markers of an error fixture.

    `<case>.crash` (pipec raises instead of reporting) marks every test of the case; `<case>.xfail`
    (wrong or misplaced diagnostics) marks only the test comparing diagnostics. Each holds the reason.
    """
    marks = []
    crash = case.with_suffix(".crash")
    xfail = case.with_suffix(".xfail")
    if crash.exists():
        marks.append(pytest.mark.xfail(strict=True, reason=crash.read_text(encoding="utf-8").strip()))
    elif xfail.exists() and not crash_only:
        marks.append(pytest.mark.xfail(strict=True, reason=xfail.read_text(encoding="utf-8").strip()))
    return marks


MINIMAL = """\
version: 1
name: {name}
mode: batch
source:
  connector: files
  path: in
  format: json
  columns:
    - {{name: id, type: BIGINT}}
    - {{name: name, type: STRING}}
sink:
  connector: files
  path: out
  format: json
"""


def minimal(name: str) -> str:
    """A small valid batch pipeline named `name`."""
    return MINIMAL.format(name=name)
