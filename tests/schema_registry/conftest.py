"""Schema Registry fixtures over the session's registry (tests/registry_service.py, through tests/conftest.py):
a fresh client, `scripts/registry` commands on the session's registry, and a subject no other test uses."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from registry_service import run_registry_script


@pytest.fixture
def registry_script(schema_registry_state_dir):
    """Runs `scripts/registry COMMAND` on the session's registry (None with an external registry)."""
    if schema_registry_state_dir is None:
        return None
    return lambda command: run_registry_script(command, schema_registry_state_dir)


@pytest.fixture
def schema_registry_client(schema_registry_url):
    """A fresh confluent-kafka SchemaRegistryClient (empty caches) for the session's registry."""
    client = SchemaRegistryClient({"url": schema_registry_url})
    yield client
    client.close()


@pytest.fixture
def subject() -> str:
    """A subject name no other test uses (the registry lives for the whole session)."""
    return f"pipec-test-{uuid.uuid4().hex[:12]}-value"
