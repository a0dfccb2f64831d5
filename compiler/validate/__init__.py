"""Stage 2, validate: the loaded document against the pipeline language's JSON Schema (`schema`), after each scalar is
settled by its slot (`scalars`); keys that exclude each other (`exclusive_keys`). `compiled_schema` and `dispatch`
make the schema check fast; `schema_gen` writes the schema's generated parts.
"""
