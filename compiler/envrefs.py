"""`${env:NAME}` / `${env:NAME:-default}` references, resolved by the generated job at run time.

The compiler only checks them; the text that reaches generated code is the reference itself, so a
secret in the environment never lands in a generated file. `$${` writes a literal `${`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_REF = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


@dataclass(frozen=True, slots=True)
class Text:
    """A configured string: either plain, or a template with env references."""

    raw: str

    @property
    def has_env(self) -> bool:
        return bool(_REF.search(self.raw.replace("$${", "")))

    @property
    def literal(self) -> str:
        """The plain value (only meaningful when `has_env` is false)."""
        return self.raw.replace("$${", "${")


def check_env_refs(raw: str) -> str | None:
    """None when every `${env:` reference in `raw` is well formed, else what is wrong."""
    i = 0
    while True:
        i = raw.find("${env:", i)
        if i < 0:
            return None
        if i > 0 and raw[i - 1] == "$":
            i += 2
            continue
        match = _REF.match(raw, i)
        if not match:
            return f"unterminated or malformed reference at '{raw[i : i + 30]}'"
        i = match.end()


def mentions_env(raw: str) -> bool:
    """True when `raw` holds an (unescaped) `${env:` reference."""
    return "${env:" in raw.replace("$${", "")


def resolve(raw: str, environ: dict[str, str]) -> str:
    """Resolve references the way generated jobs do (this function is mirrored in compiler/runtime/env.py)."""

    def sub(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name in environ:
            return environ[name]
        if default is not None:
            return default
        raise KeyError(f"environment variable {name} is not set")

    parts = raw.split("$${")
    return "${".join(_REF.sub(sub, p) for p in parts)
