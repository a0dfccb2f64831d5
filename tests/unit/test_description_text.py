"""The pipeline's description is the first line of the job's docstring and of its --help, exactly: quotes and
backslashes included (the docstring escapes them), and % signs (argparse formats a description only when it
holds %(prog)), whatever else the text holds."""

from __future__ import annotations

import ast
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from black_style import is_formatted
from job_text import compile_text
from pipec.emit.render import comment_text

BASE = """\
version: 1
name: described
mode: batch
source: {connector: files, path: in, format: json, columns: [{name: id, type: BIGINT}]}
sink: {connector: files, path: out, format: json}
"""
DESCRIPTIONS = [
    'Orders "cleared" by the C:\\payments\\ service',
    "Ends in a backslash \\",
    'Ends in a quote "',
    'Triple """ and \'\'\' quotes, \\" and \\\\ and \\n as typed',
    "Keeps 100% of %(prog)s records, {{ jinja }} and ${x}",
    "50% off, %d and %% as typed",
    "Tabs\tand\nnewlines fold to one line; ünïcode stays",
]


def _job(description: str) -> str:
    source, diagnostics = compile_text(BASE + "description: " + yaml.safe_dump(description, width=1000))
    assert source is not None, diagnostics
    return source


@pytest.mark.parametrize("description", DESCRIPTIONS)
def test_the_docstring_holds_the_description_exactly(description):
    doc = ast.get_docstring(ast.parse(_job(description)), clean=False)
    assert doc.split("\n")[0] == f"described: {comment_text(description)}"


@pytest.mark.parametrize("description", ["\r", " \t", "\u2028"])
def test_a_blank_description_leaves_no_trailing_space(description):
    """The first line is then the name and its colon, as black writes it (found by tests/spark/test_escaping.py)."""
    source = _job(description)
    assert source.split("\n")[0] == '"""described:'
    assert is_formatted(source)


@pytest.mark.parametrize("description", DESCRIPTIONS)
def test_help_prints_the_description_exactly(description):
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "described.py"
        job.write_text(_job(description), encoding="utf-8")
        done = subprocess.run([sys.executable, str(job), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "".join(comment_text(description).split()) in "".join(done.stdout.split())
