"""Paths as the job means them, also under Spark Connect."""

from __future__ import annotations

import os
import re

# Where the job was started, and whether through Spark Connect: taken once, on the client. A micro-batch function
# Spark Connect runs in its server's Python worker carries these values with it, so paths resolve as the client meant.
_CLIENT = (os.getcwd(), "SPARK_REMOTE" in os.environ)


def location(path: str | None) -> str | None:
    """A path as the job means it: under Spark Connect (SPARK_REMOTE) a relative local path is made absolute against
    the client's working directory (the server has another); otherwise as given (on a cluster a relative path is
    relative to the default file system's working directory)."""
    cwd, remote = _CLIENT
    if path and remote and not re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", path):
        return os.path.normpath(os.path.join(cwd, path))
    return path
