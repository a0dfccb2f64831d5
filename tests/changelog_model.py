"""A reference model of Flink's ChangelogNormalize for upsert rows (docs/changelogs.md): per key in (partition,
offset) order, a new key gives +I, a changed value -U (the stored image) then +U, a delete -D with the stored image;
a delete of an absent key and an identical re-upsert give nothing and keep the stored image, with its offset.
"""

from __future__ import annotations

Image = tuple[bytes, int]  # (value, offset)


def normalize(records, table: dict[bytes, Image]) -> list[tuple]:
    """Events (key, op, value, offset) of records (key, value or None, partition, offset) against `table` (key ->
    stored image), which it updates."""
    events = []
    for key, value, _, offset in sorted(records, key=lambda r: (r[2], r[3])):
        stored = table.get(key)
        if value is None:
            if stored:
                events.append((key, "-D", *stored))
                del table[key]
        elif stored is None:
            events.append((key, "+I", value, offset))
            table[key] = (value, offset)
        elif value != stored[0]:
            events += [(key, "-U", *stored), (key, "+U", value, offset)]
            table[key] = (value, offset)
    return events
