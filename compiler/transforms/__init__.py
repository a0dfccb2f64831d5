"""The one registry of transforms and predicates.

Each family lives in its own module of this package and lists its specs in a module-level
`SPECS` tuple; adding a module registers its transforms.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import PACKAGE, PREDICATE_PACKAGE, ConfigReader, Context, Lowering, PredicateSpec, Registry, TransformSpec


def _collect() -> Registry:
    registry = Registry()
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for spec in getattr(module, "SPECS", ()):
            registry.add(spec)
    return registry


REGISTRY = _collect()

__all__ = [
    "PACKAGE", "PREDICATE_PACKAGE", "REGISTRY", "ConfigReader", "Context", "Lowering", "PredicateSpec", "Registry",
    "TransformSpec",
]
