"""The pipeline language's JSON Schema; installed as the package `pipec.schemas`."""
