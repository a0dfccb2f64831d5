"""A streaming progress's observed metrics."""

from __future__ import annotations


def by_name(metric) -> dict:
    """An observed metric's values by name: a Row, a dict (Spark Connect 3.5) or a Row of `values` and `schema`
    (Spark Connect 4)."""
    values = metric.asDict() if hasattr(metric, "asDict") else dict(metric)
    if set(values) == {"values", "schema"} and isinstance(values["schema"], dict):
        return {f["name"]: v for f, v in zip(values["schema"]["fields"], values["values"])}
    return values
