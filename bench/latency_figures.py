"""The latency benchmark's figures (bench/latency.py): where a micro-batch's time goes, and min/median/max."""

from __future__ import annotations

import statistics

PLANNING = ("latestOffset", "getBatch", "queryPlanning", "walCommit")  # durationMs parts before the batch runs


def where_the_time_goes(events: list[tuple]) -> dict:
    """Medians over the micro-batches (with rows) of their durationMs parts, planning against running."""
    batches = [e for e in events if e[2] > 0]
    if not batches:
        return {"batches": 0}
    parts = sorted({k for e in batches for k in e[3]})
    median = {k: statistics.median(e[3].get(k, 0) for e in batches) for k in parts}
    return {
        "batches": len(batches),
        "rows_per_batch_median": statistics.median(e[2] for e in batches),
        "duration_ms_median": median,
        "planning_ms_median": statistics.median(sum(e[3].get(k, 0) for k in PLANNING) for e in batches),
        "add_batch_ms_median": median.get("addBatch", 0),
        "trigger_ms_median": median.get("triggerExecution", 0),
    }


def summary(values: list[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "values": values}


def _text(s: dict) -> str:
    return f"median {s['median']:.3f} (min {s['min']:.3f}, max {s['max']:.3f})"


def median_round(runs: list[dict]) -> dict:
    """A mode's figures: those of its round with the median p99 (the lower middle one of an even count), with
    every round's p99, planning and load beside them; an error if no round ran."""
    ran = sorted((r for r in runs if "p99_s" in r), key=lambda r: r["p99_s"])
    if not ran:
        return runs[0]
    figures = dict(ran[(len(ran) - 1) // 2])
    if len(runs) > 1:
        figures["each_round"] = [
            {k: r.get(k) for k in ("p50_s", "p99_s", "planning_ms_median", "load_average")} for r in runs
        ]
    return figures
