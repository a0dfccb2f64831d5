"""The options Spark's file reader and writer take (csv/json/text/parquet/avro and the streaming file source),
and the console sink's: the keys a files source or sink, or a console sink, may pass through."""

from __future__ import annotations

_TEXT_OPTIONS = {"encoding", "lineSep", "dateFormat", "timestampFormat", "timestampNTZFormat", "locale", "compression"}
_CSV_OPTIONS = {
    "header",
    "sep",
    "delimiter",
    "quote",
    "escape",
    "comment",
    "nullValue",
    "emptyValue",
    "nanValue",
    "ignoreLeadingWhiteSpace",
    "ignoreTrailingWhiteSpace",
    "quoteAll",
    "escapeQuotes",
    "charToEscapeQuoteEscaping",
}
FILE_READ_OPTIONS = frozenset(
    _TEXT_OPTIONS
    | _CSV_OPTIONS
    | {
        "mode",
        "multiLine",
        "columnNameOfCorruptRecord",
        "maxColumns",
        "maxCharsPerColumn",
        "enforceSchema",
        "allowComments",
        "allowUnquotedFieldNames",
        "allowSingleQuotes",
        "allowNumericLeadingZeros",
        "allowNonNumericNumbers",
        "allowBackslashEscapingAnyCharacter",
        "allowUnquotedControlChars",
        "dropFieldIfAllNull",
        "primitivesAsString",
        "prefersDecimal",
        "wholetext",
        "recursiveFileLookup",
        "pathGlobFilter",
        "modifiedBefore",
        "modifiedAfter",
        "ignoreCorruptFiles",
        "ignoreMissingFiles",
        "mergeSchema",
        "datetimeRebaseMode",
        "int96RebaseMode",
        "maxFilesPerTrigger",
        "maxBytesPerTrigger",
        "latestFirst",
        "fileNameOnly",
        "maxFileAge",
        "cleanSource",
        "sourceArchiveDir",
        "avroSchema",
        "positionalFieldMatching",
    }
)
FILE_WRITE_OPTIONS = frozenset(
    _TEXT_OPTIONS
    | _CSV_OPTIONS
    | {"ignoreNullFields", "maxRecordsPerFile", "avroSchema", "recordName", "recordNamespace"}
)
CONSOLE_OPTIONS = frozenset({"numRows", "truncate"})
