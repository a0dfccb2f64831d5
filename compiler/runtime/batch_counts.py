"""A batch's counts (a batch run's, a micro-batch function's), read from its Observations once its write is done."""

from __future__ import annotations

from .counts import Counts, unavailable

# Counts the sink reports of its own write (a table's MERGE: its fates and the rows inserted, updated, deleted)
SINK_COUNTS: dict[str, dict[str, int]] = {}


def batch_lines(counts: Counts, label: str) -> list[tuple[str, bool]]:
    """`Counts.lines` of the batch's observations, or why there are none (counts never fail a committed write)."""
    try:
        metrics = {point: observed.get for point, observed in counts.observations.items()}
        return Counts.lines(label, {**metrics, **SINK_COUNTS})
    except Exception as exc:
        return [(unavailable(label, exc), False)]
    finally:
        SINK_COUNTS.clear()
