"""What pipec's output depends on besides the YAML: a digest of its own files (code, runtime, templates, schema),
its version and ruff's (the formatter that writes the jobs). A development install changes these files without
changing `__version__`, so the cache is keyed by their content, never by a version string or a time stamp."""

from __future__ import annotations

import hashlib
import os
import sys
from functools import lru_cache
from pathlib import Path

from .. import __version__

CODE = Path(__file__).resolve().parent.parent  # the package: compiler/ (this module is in compiler/project/)


def formatter_version(package: str = "ruff") -> str:
    """The formatter's version: from the name of its metadata folder (`ruff-X.Y.Z.dist-info`) in the first entry
    of sys.path that holds one, as importlib.metadata would find it; importlib.metadata itself (its import costs
    more than the rest of a one-pipeline compile's cache lookup) only where no such folder is found."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.startswith(f"{package}-") and name.endswith(".dist-info"):
                return name[len(package) + 1 : -len(".dist-info")]
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def _files() -> list[tuple[str, Path]]:
    """(name, path) of every file that makes pipec's output: its code, its templates and its schema, wherever
    they are installed (compiler/package_data.py)."""
    from ..package_data import SCHEMA_PATH, TEMPLATES

    found = [(f"code/{p.relative_to(CODE).as_posix()}", p) for p in CODE.rglob("*.py")]
    found += [(f"templates/{p.relative_to(TEMPLATES).as_posix()}", p) for p in TEMPLATES.rglob("*.j2")]
    return sorted(found) + [("schema", SCHEMA_PATH)]


def digest() -> str:
    """sha256 of the files that make pipec's output, with their names."""
    h = hashlib.sha256()
    for name, path in _files():
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def fingerprint() -> str:
    """This pipec: its version, its files' digest and its formatter's version."""
    return hashlib.sha256(f"{__version__}\0{digest()}\0{formatter_version()}".encode()).hexdigest()
