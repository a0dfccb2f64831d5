"""The one registry of transforms and predicates. Each family lives in its own module."""

from __future__ import annotations

from .base import PACKAGE, PREDICATE_PACKAGE, ConfigReader, Context, PredicateSpec, Registry, TransformSpec
from .fields import INSERT_FIELD, REPLACE_FIELD
from .filtering import FILTER, HAS_HEADER_KEY, RECORD_IS_TOMBSTONE, TOPIC_NAME_MATCHES

REGISTRY = Registry()
for _spec in (INSERT_FIELD, REPLACE_FIELD, FILTER, HAS_HEADER_KEY, RECORD_IS_TOMBSTONE, TOPIC_NAME_MATCHES):
    REGISTRY.add(_spec)

__all__ = [
    "PACKAGE", "PREDICATE_PACKAGE", "REGISTRY", "ConfigReader", "Context", "PredicateSpec", "Registry", "TransformSpec",
]
