"""The files pipec ships beside its code, found the same way in an editable install and in a wheel.

In the repository they are the top-level `templates/` and `schemas/` folders; pyproject.toml installs them as the
packages `compiler.templates` and `compiler.schemas`, so they are read through `importlib.resources`, never
relative to this file.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def _folder(package: str) -> Path:
    # pip installs wheels unpacked: the resources of a regular package are files on disk (jinja2 reads a folder).
    return Path(str(files(package)))


TEMPLATES = _folder("compiler.templates")
SCHEMA_PATH = _folder("compiler.schemas") / "pipeline.schema.json"


def source_checkout() -> Path | None:
    """The root of the pipec repository this package runs from (an editable install); None for a wheel."""
    root = Path(__file__).resolve().parent.parent
    return root if (root / "pyproject.toml").is_file() and (root / "templates").is_dir() else None
