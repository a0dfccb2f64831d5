"""The one registry of transforms and predicates.

Each family lives in its own module of this package and lists its specs in a module-level `SPECS` tuple;
`FAMILIES` names those modules, so registering a new family is one import and one entry here.
"""

from __future__ import annotations

from types import ModuleType

from . import casting, dropping, fields, filtering, headers, masking, routing, schema_metadata, structure, timestamps
from .base import PACKAGE, PREDICATE_PACKAGE, ConfigReader, Context, Lowering, PredicateSpec, Registry, TransformSpec

FAMILIES: tuple[ModuleType, ...] = (
    casting,
    dropping,
    fields,
    filtering,
    headers,
    masking,
    routing,
    schema_metadata,
    structure,
    timestamps,
)


def _collect() -> Registry:
    registry = Registry()
    for family in FAMILIES:
        for spec in family.SPECS:
            registry.add(spec)
    return registry


REGISTRY = _collect()

__all__ = [
    "FAMILIES",
    "PACKAGE",
    "PREDICATE_PACKAGE",
    "REGISTRY",
    "ConfigReader",
    "Context",
    "Lowering",
    "PredicateSpec",
    "Registry",
    "TransformSpec",
]
