"""The full pipeline of docs/reference/README.md runs its record tests (masking, routing, wire bytes with
timestamp-format epoch-millis, a dead letter with its context headers and the counts) through its generated job."""

from __future__ import annotations

import pytest

from tests.unit.test_reference import reference_example

pytestmark = pytest.mark.spark


def test_the_reference_example_passes_its_record_tests(tmp_path, check_pipeline_records):
    check_pipeline_records(reference_example(tmp_path))
