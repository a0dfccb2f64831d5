"""The jinja2 templates that lay out a generated job; installed as the package `pipec.templates`."""
