"""`pipec diff`'s output contract half: what a change to one pipeline does to what its sink writes (destination,
formats, fields, headers, keys, partitioning, a table's layout). Judge (checkpoint_diff.py) holds the checkpoint
half and the verdict."""

from __future__ import annotations

from ..connectors import SINKS
from .contract import Contract, contract, flat_fields

# Severities of the output contract's reasons.
BREAKING, COMPATIBLE = "breaking", "compatible"


class ContractJudge:
    """Judge's output contract methods; they read its compiled versions (`old`, `new`), their pipelines (`o`, `n`)
    and `add` their reasons."""

    def contract(self) -> None:
        o, n = contract(self.old), contract(self.new)
        if o.connector == n.connector and not SINKS[o.connector].durable:
            return
        self.destination(o, n)
        for side, fmt in (("key", "key_format"), ("value", "value_format")):
            if getattr(o, fmt) != getattr(n, fmt):
                self.add(
                    BREAKING, "sink-contract", f"the {side} format changes from {getattr(o, fmt)} to {getattr(n, fmt)}"
                )
            else:
                self.fields(side, getattr(o, side), getattr(n, side), positional=n.value_format == "csv")
        for key in n.headers_added:
            if key not in o.headers_added:
                self.add(COMPATIBLE, "sink-contract", f"records get header '{key}'")
        for key in o.headers_added:
            if key not in n.headers_added:
                self.add(BREAKING, "sink-contract", f"records no longer get header '{key}'")
        for key in n.headers_dropped:
            if key not in o.headers_dropped:
                self.add(BREAKING, "sink-contract", f"header '{key}' is now dropped")
        if o.primary_key != n.primary_key:
            self.add(
                BREAKING,
                "sink-contract",
                f"the upsert key changes from [{', '.join(o.primary_key)}] to [{', '.join(n.primary_key)}]",
            )
        if o.changelog != n.changelog:
            self.add(
                BREAKING,
                "sink-contract",
                "rows " + ("now carry" if n.changelog else "no longer carry") + " a changelog op",
            )
        if o.partition_by != n.partition_by:
            self.add(
                BREAKING,
                "sink-contract",
                f"the folder's partitioning changes from [{', '.join(o.partition_by)}] to [{', '.join(n.partition_by)}]",
            )
        self.table()

    def table(self) -> None:
        """A table sink: what an existing table cannot take (its layout is fixed when the job creates it)."""
        o, n = self.o.sink, self.n.sink
        if not (o.connector == n.connector and SINKS[n.connector].writes_table):
            return
        o, n = o.config, n.config
        if o.apply != n.apply:
            self.add(
                BREAKING,
                "sink-contract",
                f"the table's apply mode changes from {o.apply} to {n.apply}: its rows "
                "mean something else (needs a new table and a new checkpoint)",
            )
        if o.sequence_by != n.sequence_by and n.apply != "append":
            self.add(
                BREAKING,
                "sink-contract",
                f"sequence-by changes from {o.sequence_by or 'the record timestamp'} to "
                f"{n.sequence_by or 'the record timestamp'}: the table's __SEQUENCE column changes type (needs a new table)",
            )
        if o.primary_key != n.primary_key or o.partition_by != n.partition_by:
            self.add(
                BREAKING,
                "sink-contract",
                "the table's key or partitioning changes: the job refuses to write the "
                "existing table differently (needs a new table and a new checkpoint)",
            )

    def destination(self, o: Contract, n: Contract) -> None:
        if o.destination != n.destination:
            self.add(BREAKING, "sink-contract", f"records go to {n.destination} instead of {o.destination}")
        if o.routing != n.routing:
            self.add(
                BREAKING,
                "sink-contract",
                "records are routed to topics differently: "
                + ("; ".join(n.routing) or "no router step now")
                + (f" (was: {'; '.join(o.routing)})" if o.routing else ""),
            )

    def fields(self, side: str, old, new, positional: bool) -> None:
        o, n = flat_fields(old), flat_fields(new)
        removed = [p for p in o if p not in n]
        added = [p for p in n if p not in o]
        renamed = self.renames(side, removed, added, o, n)
        for before, after in renamed:
            self.add(BREAKING, "sink-contract", f"{side} field '{before}' is renamed to '{after}'")
        for path in removed:
            if all(path != b for b, _ in renamed):
                self.add(BREAKING, "sink-contract", f"{side} field '{path}' ({o[path].sql()}) is removed")
        for path in added:
            if all(path != a for _, a in renamed) and not any(path.startswith(p + ".") for p in added):
                self.add(
                    BREAKING if positional else COMPATIBLE,
                    "sink-contract",
                    f"{side} field '{path}' ({n[path].sql()}) is added"
                    + (" (csv columns are positional)" if positional else ""),
                )
        for path in o:
            if path in n and o[path] != n[path] and not (hasattr(o[path], "fields") and hasattr(n[path], "fields")):
                self.add(
                    BREAKING,
                    "sink-contract",
                    f"{side} field '{path}' changes type from {o[path].sql()} to {n[path].sql()}",
                )
        if positional and [p for p in o if p in n] != [p for p in n if p in o]:
            self.add(BREAKING, "sink-contract", f"the {side}'s csv columns change order")

    @staticmethod
    def renames(side: str, removed: list[str], added: list[str], o: dict, n: dict) -> list[tuple[str, str]]:
        """A removed and an added field of one type at the same position read as a rename."""
        order_o, order_n = list(o), list(n)
        pairs = []
        for before in removed:
            for after in added:
                if (
                    o[before] == n[after]
                    and order_o.index(before) == order_n.index(after)
                    and after not in [a for _, a in pairs]
                ):
                    pairs.append((before, after))
                    break
        return pairs
