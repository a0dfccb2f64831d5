"""The README states the black mode of generated jobs, so a reviewer's `black --check` agrees with pipec's."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import black
from black_style import MODE

ROOT = Path(__file__).resolve().parents[2]


def _readme_command() -> list[str]:
    (command,) = re.findall(r"`(black --check [^`]+)`", (ROOT / "README.md").read_text(encoding="utf-8"))
    return shlex.split(command)


def test_the_readme_command_names_the_pinned_mode():
    args = _readme_command()
    assert args[args.index("-l") + 1] == str(MODE.line_length)
    assert {black.TargetVersion[args[args.index("-t") + 1].upper()]} == MODE.target_versions


def test_the_readme_command_passes_on_the_checked_in_jobs():
    done = subprocess.run(
        [sys.executable, "-m", *_readme_command()], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
