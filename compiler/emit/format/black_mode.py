"""Black's pinned mode for generated jobs (`-l 100 -t py310`), and the check that a text is black-stable.

`pipec compile` does not run black over a job: the printer (`compiler/emit/format/printer`, `compiler/emit/format/layout.py`) writes
black's layout itself and hands black only what it cannot measure. The tests assert that every job they
build is exactly what black writes (`is_formatted`). black is imported only when it is needed.
"""

from __future__ import annotations

from functools import lru_cache

LINE_LENGTH = 100
TARGET_VERSION = "PY310"


class GeneratedCodeError(RuntimeError):
    """The compiler produced invalid Python: a bug in pipec, never the user's YAML."""


@lru_cache(maxsize=1)
def black_mode():
    import black

    return black.Mode(target_versions={getattr(black.TargetVersion, TARGET_VERSION)}, line_length=LINE_LENGTH)


def __getattr__(name: str):
    if name == "MODE":  # black.Mode, built on first use
        return black_mode()
    raise AttributeError(name)


def format_python(text: str, filename: str) -> str:
    """Black's formatting of `text`; raises GeneratedCodeError if the text does not compile."""
    import black

    try:
        compile(text, filename, "exec")
    except SyntaxError as exc:
        raise GeneratedCodeError(f"pipec generated invalid Python for {filename}: {exc}") from exc
    return black.format_str(text, mode=black_mode())


def is_formatted(text: str) -> bool:
    """True when black would leave `text` exactly as it is."""
    import black

    return black.format_str(text, mode=black_mode()) == text
