"""Generated jobs in black's style (`-l 100 -t py310`), written by ruff's formatter.

ruff is pinned exactly in pyproject.toml, so the same pipec writes the same bytes on every machine, and it is run
with explicit settings (`--isolated`: no configuration file of the user's applies). Black stays the contract: the
tests check every job they build with `black --check` under the oldest and newest black the project supports
(scripts/black-contract). Many jobs are formatted in one ruff call, which formats them on all cores.
"""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

LINE_LENGTH = 100
TARGET_VERSION = "py310"
SETTINGS = ("--isolated", "--line-length", str(LINE_LENGTH), "--target-version", TARGET_VERSION)


class GeneratedCodeError(RuntimeError):
    """The compiler produced invalid Python: a bug in pipec, never the user's YAML."""


@lru_cache(maxsize=1)
def ruff() -> str:
    """The ruff executable of the installed `ruff` package: in a virtualenv, its scripts folder beside this Python
    (only the venv's packages put a `ruff` there: the pinned one), else where the package itself says (its lookup
    imports sysconfig, which costs a cold compile some 25 ms)."""
    import sys

    beside = Path(sys.executable).with_name("ruff.exe" if sys.platform == "win32" else "ruff")
    if sys.prefix != sys.base_prefix and beside.is_file():
        return str(beside)
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


def _failed(done: subprocess.CompletedProcess, what: str) -> GeneratedCodeError:
    return GeneratedCodeError(f"pipec generated invalid Python for {what}: {done.stderr.strip()[:2000]}")


def format_source(text: str, filename: str = "job.py") -> str:
    """One job's text, formatted."""
    done = subprocess.run(
        [ruff(), "format", *SETTINGS, "--stdin-filename", filename, "-"],
        input=text,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if done.returncode != 0:
        raise _failed(done, filename)
    return done.stdout


def format_sources(texts: dict[str, str]) -> dict[str, str]:
    """file name -> text, every one formatted, in one ruff call (one file: through its standard input)."""
    if len(texts) <= 1:
        return {name: format_source(text, name) for name, text in texts.items()}
    import tempfile  # only here: a one-pipeline compile never needs it

    with tempfile.TemporaryDirectory(prefix="pipec-format-") as tmp:
        folder = Path(tmp)
        for name, text in texts.items():
            (folder / name).write_text(text, encoding="utf-8", newline="\n")
        done = subprocess.run(
            [ruff(), "format", *SETTINGS, "--no-cache", "--quiet", str(folder)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        if done.returncode != 0:
            raise _failed(done, ", ".join(sorted(texts))[:200])
        return {name: (folder / name).read_text(encoding="utf-8") for name in texts}
