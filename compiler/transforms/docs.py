"""docs/transforms.md, produced from the registry (`python -m pipec.transforms.docs` rewrites it)."""

from __future__ import annotations

import sys

from ..package_data import source_checkout
from . import REGISTRY
from .base import ConfigKey

DOC = "docs/transforms.md"  # in pipec's repository


def _default(key: ConfigKey) -> str:
    if key.default is None:
        return "—"
    if isinstance(key.default, bool):
        return str(key.default).lower()
    if isinstance(key.default, list):
        return "[]" if not key.default else ", ".join(map(str, key.default))
    return f"`{key.default}`" if key.default != "" else '`""`'


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _keys(keys: tuple[ConfigKey, ...]) -> list[str]:
    if not keys:
        return ["No configuration.", ""]
    lines = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for k in keys:
        meaning = f"{k.doc} {k.rules()}".strip()
        lines.append(f"| `{k.name}` | {k.kind} | {_default(k)} | {_cell(meaning)} |")
    return lines + [""]


def render() -> str:
    out = [
        "# Transforms and predicates",
        "",
        "Generated from the registry (`compiler/transforms/`) by `python -m pipec.transforms.docs`; a test keeps it current.",
        "Config keys are Kafka Connect's own. LIST keys take a YAML list or a comma-separated string. Every step",
        "also takes `name` (its alias), `type`, `predicate` and `negate`.",
        "",
        "## Transforms",
        "",
    ]
    for spec in sorted(REGISTRY.transforms.values(), key=lambda s: s.name):
        variants = f"`{spec.name}$Key`, `{spec.name}$Value`" if spec.sides else f"`{spec.name}`"
        out += [f"### {spec.name}", "", f"Types: {variants}. {spec.doc}", ""]
        out += _keys(spec.keys)
        if spec.example:
            out += ["```yaml", spec.example, "```", ""]
        if spec.differences:
            out += ["Differences from Kafka Connect:", ""] + [f"- {d}" for d in spec.differences] + [""]
    out += ["## Predicates", ""]
    for spec in sorted(REGISTRY.predicates.values(), key=lambda s: s.name):
        out += [f"### {spec.name}", "", spec.doc, ""] + _keys(spec.keys)
        if spec.example:
            out += ["```yaml", "predicates:", "  " + spec.example, "```", ""]
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    root = source_checkout()
    if root is None:
        print(
            f"python -m pipec.transforms.docs rewrites {DOC} of pipec's repository; this pipec is installed from a wheel",
            file=sys.stderr,
        )
        return 2
    path = root / DOC
    path.write_text(render(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
