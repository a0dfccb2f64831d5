"""`${env:NAME}` and `${env:NAME:-default}` in configured values, resolved when the job runs."""

from __future__ import annotations

import os
import re

from .job_names import PIPELINE

_ENV_REF = re.compile(r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def env(template: str) -> str:
    """Resolve ${env:NAME} and ${env:NAME:-default} at run time; $${ stands for a literal ${."""

    def value(match: re.Match) -> str:
        name, default = match.groups()
        if name not in os.environ and default is None:
            raise SystemExit(f"{PIPELINE}: environment variable {name} is not set")
        return os.environ.get(name, default)

    return "${".join(_ENV_REF.sub(value, part) for part in template.split("$${"))
