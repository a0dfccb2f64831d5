"""The job's entry point."""

from __future__ import annotations

import sys

from .arguments import parse_args
from .batch import run  # or .streaming's: the emitter picks by the job's mode
from .failures import failure
from .job_names import PIPELINE
from .session import session, warn


def main(argv: list[str] | None = None) -> int:
    """Run the job: exit 0, or 1 with one line on stderr when the session, the source or the query failed."""
    args = parse_args(argv)
    try:
        run(session(args), args)
    except Exception as exc:
        warn(f"{PIPELINE}: failed: {failure(exc)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
