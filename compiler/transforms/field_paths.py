"""KIP-821 field paths: ``field.syntax.version`` and the V1/V2 path grammar.

The V2 grammar follows what Kafka ships (``SingleFieldPath``, 3.8+), not the
KIP-821 wiki page where the two disagree:

* A step that does not start with a backtick runs to the next ``.``; backticks
  and backslashes inside it are literal.
* A step that starts with a backtick ends at the first later backtick that is
  followed by ``.`` (or is the last character of the path) and is not preceded
  by a backslash. A backslash directly before a backtick that is followed by
  ``.`` is dropped (the backtick and dot become part of the name); every other
  backslash is kept.
* A trailing ``.`` adds an empty step; the empty path has zero steps.

Error positions count Python characters (code points); Kafka counts UTF-16
units, so the two differ only after characters outside the BMP.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "SYNTAX_VERSIONS",
    "FieldPath",
    "PathSyntaxError",
    "format_path",
    "parse_path",
    "parse_syntax_version",
    "syntax_version_error",
]

SYNTAX_VERSIONS: tuple[str, ...] = ("V1", "V2")

_BACKTICK = "`"
_DOT = "."
_BACKSLASH = "\\"


class PathSyntaxError(ValueError):
    """An opening backtick with no closing one."""

    message: str
    position: int
    path: str

    def __init__(self, path: str, position: int) -> None:
        self.path = path
        self.position = position
        self.message = (
            f"Incomplete backtick pair in path: [{path}], consider adding a backslash "
            f"before backtick at position {position} to escape it"
        )
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True, slots=True)
class FieldPath:
    """A parsed field path: the configured text and its steps, outermost first."""

    text: str
    steps: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.steps, tuple):
            object.__setattr__(self, "steps", tuple(self.steps))

    @property
    def name(self) -> str:
        """The last step (the field the path points at)."""
        if not self.steps:
            raise ValueError(f"field path [{self.text}] has no steps")
        return self.steps[-1]

    @property
    def parent(self) -> tuple[str, ...]:
        """All steps but the last (empty for a top-level field)."""
        return self.steps[:-1]

    def __str__(self) -> str:
        return self.text


def parse_syntax_version(value: str) -> str | None:
    """Case-insensitive 'V1'/'V2' -> 'V1'/'V2'; anything else -> None (caller reports the error)."""
    if not isinstance(value, str):
        return None
    upper = value.upper()
    return upper if upper in SYNTAX_VERSIONS else None


def syntax_version_error(value: object) -> str:
    """Kafka's ConfigException wording for a bad ``field.syntax.version`` value."""
    return (
        f"Invalid value {value} for configuration field.syntax.version: "
        f"String must be one of (case insensitive): {', '.join(SYNTAX_VERSIONS)}"
    )


def parse_path(text: str, version: str = "V1") -> FieldPath:
    """V1: the whole text is one step. V2: Kafka's SingleFieldPath grammar. Raises PathSyntaxError."""
    normalized = parse_syntax_version(version)
    if normalized is None:
        raise ValueError(syntax_version_error(version))
    if normalized == "V1":
        return FieldPath(text, (text,))
    return FieldPath(text, _split_v2(text))


def _split_v2(text: str) -> tuple[str, ...]:
    """Split a V2 path into steps, or raise PathSyntaxError."""
    steps: list[str] = []
    end = len(text)
    pos = 0
    while pos < end:
        if text[pos] != _BACKTICK:
            # Plain step: everything up to the next dot, taken literally.
            dot = text.find(_DOT, pos)
            if dot < 0:
                steps.append(text[pos:])
                pos = end
            else:
                steps.append(text[pos:dot])
                pos = dot + 1
            continue

        # Backtick step: look for the closing backtick.
        opening = pos
        pieces: list[str] = []
        piece_start = search_from = opening + 1
        while True:
            tick = text.find(_BACKTICK, search_from)
            if tick < 0:
                raise PathSyntaxError(text, opening)
            escaped = text[tick - 1] == _BACKSLASH
            if tick == end - 1:
                if escaped:
                    raise PathSyntaxError(text, opening)
                pieces.append(text[piece_start:tick])
                pos = end
                break
            if text[tick + 1] != _DOT:
                # Not followed by a dot: literal, backslash before it included.
                search_from = tick + 1
                continue
            if escaped:
                # "\`." inside the name: drop that one backslash, keep going.
                pieces.append(text[piece_start : tick - 1])
                pieces.append(_BACKTICK)
                piece_start = search_from = tick + 1
                continue
            pieces.append(text[piece_start:tick])
            pos = tick + 2  # past the closing backtick and its dot
            break
        steps.append("".join(pieces))

    if text.endswith(_DOT):
        steps.append("")
    return tuple(steps)


def _needs_backticks(step: str) -> bool:
    return _DOT in step or step.startswith(_BACKTICK)


def _quote(step: str) -> str:
    """Wrap a step in backticks, escaping each backtick that is followed by a dot."""
    out: list[str] = [_BACKTICK]
    for index, char in enumerate(step):
        if char == _BACKTICK and step[index + 1 : index + 2] == _DOT:
            out.append(_BACKSLASH)
        out.append(char)
    out.append(_BACKTICK)
    return "".join(out)


def format_path(steps: Sequence[str]) -> str:
    """The inverse of V2 ``parse_path``: a path string that parses back to exactly ``steps``.

    Plain steps are joined with '.'; steps that contain '.' or start with a backtick are
    wrapped in backticks, with a backslash before every inner backtick followed by '.'.
    A lone empty step is written as a backtick pair. A step that needs backticks and ends
    with a backslash cannot be written in V2 syntax (the closing backtick would read as
    escaped), so it raises ValueError.
    """
    if isinstance(steps, str):
        raise TypeError("format_path expects a sequence of steps, not a string")
    parts: list[str] = []
    for step in steps:
        if not isinstance(step, str):
            raise TypeError(f"path step must be a string, got {type(step).__name__}")
        if _needs_backticks(step):
            if step.endswith(_BACKSLASH):
                raise ValueError(
                    f"path step {step!r} cannot be expressed in V2 syntax: it must be wrapped "
                    "in backticks (it contains '.' or starts with '`') and it ends with a "
                    "backslash, which would escape the closing backtick"
                )
            parts.append(_quote(step))
        else:
            parts.append(step)
    if len(parts) == 1 and parts[0] == "":
        return _BACKTICK * 2  # "" alone would parse to zero steps
    return _DOT.join(parts)
