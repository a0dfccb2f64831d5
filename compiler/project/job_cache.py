"""A cache of what compiling each pipeline file gave: its pipeline's name, its job's file name, sha256 and text and
its warnings, keyed by the sha256 of the file's bytes, the name the job gives the file (relative to the
repository) and pipec's fingerprint (`compiler/project/fingerprint.py`).

`pipec check` and `pipec compile` of an unchanged file then need no compiling: they hash the job on disk and
compare, so a hand edit of a job is still caught (compile writes the job's text the cache keeps). An entry is only
ever written after a full compile; nothing is keyed by time.
The cache lives in $PIPEC_CACHE_DIR (empty: no cache), else $XDG_CACHE_HOME/pipec or ~/.cache/pipec.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..diagnostics import Diagnostic, Location
from .atomic_write import write_text
from .fingerprint import fingerprint


def default_dir() -> Path | None:
    """Where the cache lives, or None when it is switched off."""
    if "PIPEC_CACHE_DIR" in os.environ:
        value = os.environ["PIPEC_CACHE_DIR"]
        return Path(value) if value else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pipec"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class JobCache:
    """Entries under <dir>/jobs/<fingerprint>/<key[:2]>/<key>.json, each written atomically."""

    def __init__(self, root: Path):
        self.folder = root / "jobs" / fingerprint()[:32]

    @staticmethod
    def key(job_file: str, file_sha256: str) -> str:
        return digest(f"{fingerprint()}\0{job_file}\0{file_sha256}".encode("utf-8", "surrogateescape"))

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def source(self, key: str) -> str | None:
        """The job's text of the entry `key` (its sha256 is the entry's), or None."""
        try:
            return self._path(key).with_suffix(".py").read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None

    def put(self, key: str, entry: dict, source: str) -> None:
        """The entry and its job's text (the text first: an entry is never there without it)."""
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path.with_suffix(".py"), source, mode=0o600)
            write_text(path, json.dumps(entry), mode=0o600)
        except OSError:
            pass  # a cache that cannot be written only costs time


def entry(name: str, name_loc: Location | None, filename: str, sha256: str, warnings: list[Diagnostic]) -> dict:
    """What a cache entry holds: enough for `check` to compare the job and to repeat the warnings."""
    return {
        "name": name,
        "name_at": [name_loc.line, name_loc.col] if name_loc else None,
        "filename": filename,
        "sha256": sha256,
        "warnings": [[d.code, d.message, [d.loc.line, d.loc.col] if d.loc else None, d.hint] for d in warnings],
    }


def warnings_of(cached: dict, file: str) -> list[Diagnostic]:
    """The entry's warnings, located in `file` (as the working directory names it now)."""
    return [
        Diagnostic(code, message, Location(file, *at) if at else None, hint, "warning")
        for code, message, at, hint in cached["warnings"]
    ]
