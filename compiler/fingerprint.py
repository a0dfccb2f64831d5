"""What pipec's output depends on besides the YAML: a digest of its own files (code, templates, schema), its
version and black's (the formatter of record, which lays out what the printer hands it). A development
install changes these files without changing `__version__`, so the cache is keyed by their content, never
by a version string or a time stamp."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from . import __version__

ROOT = Path(__file__).resolve().parent.parent
SOURCES = (("compiler", "*.py"), ("templates", "*.j2"), ("schemas", "*.json"))


def black_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("black")
    except metadata.PackageNotFoundError:
        return "none"


def digest(root: Path = ROOT) -> str:
    """sha256 of the files under `root` that make pipec's output, with their paths."""
    h = hashlib.sha256()
    for folder, pattern in SOURCES:
        for path in sorted((root / folder).rglob(pattern)):
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """This pipec: its version, its files' digest and black's version."""
    return hashlib.sha256(f"{__version__}\0{digest()}\0{black_version()}".encode()).hexdigest()
