"""`${env:NAME}` and `${env:NAME:-default}` in configured values, resolved when the job runs."""

from __future__ import annotations

import os
import re

from .job_names import PIPELINE


def env(template: str) -> str:
    """Resolve ${env:NAME} and ${env:NAME:-default} at run time; $${ stands for a literal ${."""

    def value(ref: re.Match) -> str:
        if ref[1] not in os.environ and ref[2] is None:
            raise SystemExit(f"{PIPELINE}: environment variable {ref[1]} is not set")
        return os.environ.get(ref[1], ref[2])

    refs = r"\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}"
    return "${".join(re.sub(refs, value, part) for part in template.split("$${"))
