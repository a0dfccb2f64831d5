"""Black as the output stage: a pinned mode, a compile() check before, a stability check after."""

from __future__ import annotations

import black

MODE = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=100)


class GeneratedCodeError(RuntimeError):
    """The compiler produced invalid or unstable Python: a bug in pipec, never the user's YAML."""


def format_python(text: str, filename: str) -> str:
    """Formatted source; raises GeneratedCodeError if the text does not compile or black is not stable on it."""
    try:
        compile(text, filename, "exec")
    except SyntaxError as exc:
        raise GeneratedCodeError(f"pipec generated invalid Python for {filename}: {exc}") from exc
    formatted = black.format_str(text, mode=MODE)
    if black.format_str(formatted, mode=MODE) != formatted:
        raise GeneratedCodeError(f"black is not stable on {filename}")
    return formatted
