"""Compile pipeline YAML text in-process (no Spark) and read the generated job's string literals."""

from __future__ import annotations

import ast
import tempfile
from pathlib import Path

from pipec.diagnostics import CompileError
from pipec.model import Pipeline
from pipec.project.driver import build_all, generate_all


def compile_text(text: str) -> tuple[str | None, list[str]]:
    """(the generated job, None on errors; every diagnostic rendered)."""
    source, diagnostics, _ = compile_pipeline(text)
    return source, diagnostics


def compile_pipeline(text: str) -> tuple[str | None, list[str], Pipeline | None]:
    """(the generated job, None on errors; every diagnostic rendered; the pipeline model, None on errors)."""
    with tempfile.TemporaryDirectory(prefix="pipec-text-") as tmp:
        path = Path(tmp) / "p.yaml"
        path.write_text(text, encoding="utf-8")
        result = build_all([str(path)])
        rendered = [d.render() for d in result.diags.items]
        if result.diags.errors:
            return None, rendered, None
        try:
            (source,) = generate_all(result).values()
        except CompileError as exc:
            return None, rendered + [d.render() for d in exc.diagnostics], None
        return source, rendered, result.compiled[0].pipeline


def literals(source: str) -> set[str | bytes]:
    """Every str and bytes constant of a Python module (docstrings included)."""
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))
    }
