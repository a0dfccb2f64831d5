"""Paths as the job means them, also under Spark Connect."""

from __future__ import annotations

import os
import re

# Where the job was started and whether through Spark Connect, taken on the client (a micro-batch function that
# Spark Connect runs on its server carries them: paths resolve there as the client meant)
_CLIENT = (os.getcwd(), "SPARK_REMOTE" in os.environ)


def location(path: str | None) -> str | None:
    """Under Spark Connect, a relative local path made absolute against the client's working directory."""
    if path and _CLIENT[1] and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", path):
        return os.path.normpath(os.path.join(_CLIENT[0], path))
    return path
