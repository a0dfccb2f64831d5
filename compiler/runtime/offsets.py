"""A Kafka source's `specific-offsets` startup."""

from __future__ import annotations

import json


def specific_offsets(topic: str, spec: str) -> str:
    """'partition:0,offset:42;partition:1,offset:300' -> Spark's startingOffsets JSON (-2 earliest, -1 latest)."""
    offsets = {}
    for item in spec.split(";"):
        fields = dict(part.split(":", 1) for part in item.split(","))
        offsets[str(int(fields["partition"]))] = int(fields["offset"])
    return json.dumps({topic: offsets})
