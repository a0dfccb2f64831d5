"""Black as the output stage: a pinned mode and a compile() check before formatting.

`black.format_str` already runs a second pass when its first one changed the text (black's own fix for
trailing commas that become magic), so its result is stable; the tests assert that of every job they build
(`is_formatted`), which keeps a third pass out of `pipec compile`.
"""

from __future__ import annotations

import black

MODE = black.Mode(target_versions={black.TargetVersion.PY310}, line_length=100)


class GeneratedCodeError(RuntimeError):
    """The compiler produced invalid Python: a bug in pipec, never the user's YAML."""


def format_python(text: str, filename: str) -> str:
    """Formatted source; raises GeneratedCodeError if the text does not compile."""
    try:
        compile(text, filename, "exec")
    except SyntaxError as exc:
        raise GeneratedCodeError(f"pipec generated invalid Python for {filename}: {exc}") from exc
    return black.format_str(text, mode=MODE)


def is_formatted(text: str) -> bool:
    """True when black would leave `text` exactly as it is."""
    return black.format_str(text, mode=MODE) == text
