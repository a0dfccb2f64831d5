"""A cold `pipec compile` of one pipeline imports none of the modules it was made not to need (issue 14: one
pipeline compiled from a cold process within 0.3 s): fractions, decimal and difflib (imported where a value or an error
needs them). jinja2 (which brings tempfile) and dataclasses are used, not copied (issue 25): their import is part of
the measured cold start (docs/benchmarks.md)."""

from __future__ import annotations

import os
import subprocess
import sys

from cli_harness import ROOT

from bench.synthetic import pipeline_yaml

NOT_IMPORTED = ("fractions", "decimal", "difflib")


def test_a_cold_compile_imports_none_of_them(tmp_path):
    pipeline = tmp_path / "p0.yaml"  # the 20-step pipeline scripts/bench --compile-only times
    pipeline.write_text(pipeline_yaml("p0", 20), encoding="utf-8")
    out = tmp_path / "out"
    code = (
        "import sys\nfrom pipec.cli import main\n"
        f"assert main(['compile', {str(pipeline)!r}, '--out', {str(out)!r}]) == 0\n"
        f"print(' '.join(m for m in {NOT_IMPORTED!r} if m in sys.modules))\n"
    )
    env = {**os.environ, "PIPEC_CACHE_DIR": ""}  # no cache: the compile the issue times
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    imported = done.stdout.split("\n")[-2].split()
    assert not imported, f"a cold compile imported {imported}: import them where they are needed"
    assert (out / "p0.py").is_file()
