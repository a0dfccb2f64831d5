"""Kafka Connect's converters read as pipec's key and value formats, and the columns they give, for the Importer
(connect_import.py)."""

from __future__ import annotations

from dataclasses import dataclass

from .connect_columns import Sample, columns_from_steps
from .connect_debezium import row_columns

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
CONVERTERS = {
    JSON_CONVERTER: "json",
    "org.apache.kafka.connect.storage.StringConverter": "raw:STRING",
    "org.apache.kafka.connect.converters.ByteArrayConverter": "raw:BYTES",
    "io.confluent.connect.avro.AvroConverter": "avro-confluent",
}


@dataclass(frozen=True, slots=True)
class Format:
    name: str  # json | raw | avro-confluent
    raw_type: str = ""  # STRING or BYTES for raw
    envelope: bool = False  # JsonConverter with schemas.enable=true: {schema, payload}
    assumed: bool = False  # the config names no converter (the worker's applies)


class FormatImport:
    """The Importer's converter and column methods; they read the Importer's config (`c`), `take`, `used`, `refuse`,
    `placeholder`, `flat`, `table` and its samples."""

    def format(self, side: str) -> Format:
        key = f"{side}.converter"
        cls = self.take(key)
        if cls is None:  # the worker's converter applies: bytes pass through as they are for a key
            return (
                Format("raw", "BYTES", assumed=True) if side == "key" else Format("json", envelope=True, assumed=True)
            )
        mapped = CONVERTERS.get(cls)
        if mapped is None:
            self.refuse(key, f"{key} {cls} has no pipec format", f"pipec reads {', '.join(CONVERTERS)}")
            return Format("json")
        for k in (f"{key}.schema.registry.url", f"{key}.schemas.enable", f"{key}.decimal.format"):
            self.used.add(k)
        if mapped.startswith("raw:"):
            return Format("raw", mapped[4:])
        enable = (self.c.get(f"{key}.schemas.enable", "true") or "").lower()
        return Format(mapped, envelope=mapped == "json" and enable == "true")

    @property
    def json_converter(self) -> bool:
        """Whether the records are JsonConverter's (named, or the worker's assumed one): a Timestamp is epoch millis."""
        return self.c.get("value.converter", JSON_CONVERTER) == JSON_CONVERTER

    def value_columns(self, fmt: Format, steps) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
        """(columns, the lines of a TODO comment, if any)."""
        if fmt.name == "raw":
            return [("value", fmt.raw_type)], ()
        if self.value_sample:
            return (row_columns(self.value_sample) if self.flat else self.value_sample.columns), ()
        inferred = columns_from_steps(steps, "value")
        if self.table:  # the columns the table sink names (its primary key, partitioning)
            inferred += [(n, "STRING") for n in self.table.columns if n not in dict(inferred)]
        todo = (
            "TODO: Connect configs declare no schema: these columns are the fields the transforms name, typed as",
            "they read them; declare every field of the records (or import again with --value-sample FILE)",
        )
        field = self.placeholder(
            "field",
            "Connect configs declare no schema: declare the records' fields (or import again with --value-sample FILE)",
        )
        return inferred or [(field, "STRING")], todo

    @staticmethod
    def payload_type(sample: Sample | None, columns: list[tuple[str, str]]) -> str:
        """The type of an envelope's payload: the sample's one value, or a struct of the columns."""
        return columns[0][1] if sample is not None and sample.primitive else _struct(columns)

    def timestamps(self, fmt: Format) -> list[tuple[str, str]]:
        """JsonConverter writes a Timestamp as epoch milliseconds: a json key or value the records' converter wrote."""
        return [("timestamp-format", "epoch-millis")] if fmt.name == "json" and self.json_converter else []


def _struct(columns: list[tuple[str, str]]) -> str:
    from ..types.sql import quote_name

    return "STRUCT<" + ", ".join(f"{quote_name(n)} {t}" for n, t in columns) + ">"
