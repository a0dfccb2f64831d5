"""bench/results.json and docs/benchmarks.md: where a benchmark run by its own subcommand merges its figures."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.json"
MARKDOWN = ROOT / "docs" / "benchmarks.md"
# figures measured by their own runs (`scripts/bench <name> --write`): a full `scripts/bench` run keeps them
MERGED = (
    "changelog_state",
    "files_dead_letters",
    "avro_confluent",
    "latency",
    "connect_peer",
    "chain_what_if",
    "chain_recheck",
    "structs_ab",
    "tables",
)


def merge(key: str, figures: dict) -> None:
    """Sets `key` of bench/results.json to `figures` and rewrites docs/benchmarks.md from the whole result."""
    from .report import markdown

    result = json.loads(RESULTS.read_text(encoding="utf-8"))
    result[key] = figures
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    MARKDOWN.write_text(markdown(result), encoding="utf-8")
    print(f"wrote bench/results.json ({key}) and docs/benchmarks.md", flush=True)


def kept_from(path: Path) -> dict:
    """The merged figures of an earlier result file (none if there is none)."""
    if not path.exists():
        return {}
    previous = json.loads(path.read_text(encoding="utf-8"))
    return {key: previous[key] for key in MERGED if key in previous}
