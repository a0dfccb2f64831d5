"""The files pipec ships beside its code: the job templates and the pipeline language's JSON Schema.

In the repository they are the top-level `templates/` and `schemas/` folders; pyproject.toml installs them as the
packages `pipec.templates` and `pipec.schemas`, so an editable install and a wheel both find them where the
import system finds those packages (their module spec: `importlib.resources` would say the same for a package on
disk, but costs its import and zipfile's on every start).
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

_BESIDE_PACKAGE = Path(__file__).resolve().parent.parent  # the repository root when running from its sources


def _folder(package: str, folder: str) -> Path:
    """The installed package's folder (pip installs wheels unpacked: its files are on disk, as jinja2 needs), or
    the repository's own folder where the sources run uninstalled from PYTHONPATH (scripts/compat's virtualenvs)."""
    try:
        spec = find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is None or spec.origin is None:
        return _BESIDE_PACKAGE / folder
    return Path(spec.origin).parent


TEMPLATES = _folder("pipec.templates", "templates")
SCHEMA_PATH = _folder("pipec.schemas", "schemas") / "pipeline.schema.json"


def source_checkout() -> Path | None:
    """The root of the pipec repository whose sources are running; None for an installed wheel."""
    root = _BESIDE_PACKAGE
    return root if (root / "pyproject.toml").is_file() and (root / "templates").is_dir() else None
