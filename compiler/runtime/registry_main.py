"""The entry point of a job that reads through a Schema Registry: a schema id it had not met, fetched, runs it again."""

from __future__ import annotations

import sys

from .arguments import parse_args
from .failures import failure
from .job_names import PIPELINE, STREAMING, read_source
from .schema_registry import fetch_carried_ids, fetched_after
from .session import session, warn
from .streaming import run  # or .batch's: the emitter picks by the job's mode


def main(argv: list[str] | None = None) -> int:
    """Run the job: exit 0, or 1 with one line on stderr when the session, the source or the query failed. A batch run
    first fetches every schema id its records carry (it never stops half-written); a query that meets one it had not
    fetched fetches it and runs again from its checkpoint."""
    args = parse_args(argv)
    try:
        spark = session(args)
        if not STREAMING:
            fetch_carried_ids(read_source(spark, args))
        while True:
            try:
                run(spark, args)
                return 0
            except Exception as exc:
                if not fetched_after(exc):
                    raise
    except Exception as exc:
        warn(f"{PIPELINE}: failed: {failure(exc)}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
