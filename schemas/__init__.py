"""The pipeline language's JSON Schema; installed as the package `compiler.schemas`."""
