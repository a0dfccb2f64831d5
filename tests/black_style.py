"""Black, the contract of generated jobs' style (`black --check -l 100 -t py310`), for the tests that hold the
jobs they build to it in-process (scripts/black-contract also runs the oldest and newest black supported)."""

from __future__ import annotations

import black
from pipec.emit.formatter import LINE_LENGTH, TARGET_VERSION

MODE = black.Mode(target_versions={black.TargetVersion[TARGET_VERSION.upper()]}, line_length=LINE_LENGTH)


def is_formatted(text: str) -> bool:
    """True when black would leave `text` exactly as it is."""
    return black.format_str(text, mode=MODE) == text
