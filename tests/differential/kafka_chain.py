"""A pipeline's chain as Kafka Connect configures it: the YAML's `transforms:` and `predicates:` as the class
names and connector properties SmtHarness.java (and bench/ConnectPeer.java) instantiate."""

from __future__ import annotations

from typing import Any

from pipec.transforms.base import PACKAGE, PREDICATE_PACKAGE


def harness_chain(steps: list[dict], predicates: dict) -> dict:
    """A pipeline's `transforms:` and `predicates:` (YAML as written) as SmtHarness's transforms and predicates."""

    def config(step: dict, skip: set[str]) -> dict[str, str]:
        return {k: _property(v) for k, v in step.items() if k not in skip}

    stages = []
    for step in steps:
        stage = {"class": _class(step["type"], PACKAGE), "config": config(step, STEP_KEYS)}
        if "predicate" in step:
            stage["predicate"] = step["predicate"]
            stage["negate"] = bool(step.get("negate", False))
        stages.append(stage)
    return {
        "predicates": {
            alias: {"class": _class(p["type"], PREDICATE_PACKAGE), "config": config(p, {"type"})}
            for alias, p in predicates.items()
        },
        "transforms": stages,
    }


STEP_KEYS = {"name", "type", "predicate", "negate"}


def _class(type_name: str, package: str) -> str:
    return type_name if type_name.startswith("org.") else package + type_name


def _property(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_property(v) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    return "" if value is None else str(value)
