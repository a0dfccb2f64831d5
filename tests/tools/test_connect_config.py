"""Reading connector configs with locations (Java .properties rules, JSON key positions) and writing YAML scalars
that read back as the same strings."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pipec.tools.connect_config import read_json, read_properties
from pipec.tools.yaml_text import scalar


def test_properties_follow_java_rules():
    text = (
        "# top\n\n! also a comment\nname = my conn\nkey1:value1\nkey2 value with spaces\n"
        "  # about key3\n  key3=a,\\\n      b,\\\n      c\nkey\\=4=x\\ty\\u00e9\nempty=\n"
    )
    config = read_properties(Path("c.properties"), text)
    assert config.name == "my conn"
    values = {k: e.value for k, e in config.entries.items()}
    assert values == {"key1": "value1", "key2": "value with spaces", "key3": "a,b,c", "key=4": "x\tyé", "empty": ""}
    assert config.entries["key3"].loc.line == 8 and config.entries["key3"].loc.col == 3
    assert config.entries["key3"].comments == ("about key3",)
    assert config.entries["key=4"].loc.line == 11


def test_json_keys_keep_their_positions_and_pointers():
    text = '{\n  "name": "n",\n  "config": {\n    "a": "x: \\"y\\"",\n    "b/c": 3,\n    "d": true\n  }\n}\n'
    config = read_json(Path("c.json"), text)
    assert config.name == "n"
    assert {k: (e.value, e.loc.line, e.loc.col, e.pointer) for k, e in config.entries.items()} == {
        "a": ('x: "y"', 4, 5, "/config/a"),
        "b/c": ("3", 5, 5, "/config/b~1c"),
        "d": ("true", 6, 5, "/config/d"),
    }


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_scalars_read_back_as_the_same_string(text):
    assert yaml.safe_load(f"k: {scalar(text)}\n") == {"k": text}


@settings(max_examples=200, deadline=None)
@given(st.text(), st.text())
def test_any_config_value_or_comment_gives_yaml_that_reads_back(value, comment):
    """Unmapped settings and properties comments land in YAML comments: nothing in them can end the comment."""
    from pipec.diagnostics import Location
    from pipec.tools.connect_config import ConnectorConfig, Entry
    from pipec.tools.connect_import import Importer

    loc = Location("c.properties", 1, 1)
    config = ConnectorConfig(
        "c.properties",
        "c",
        {
            "connector.class": Entry(
                "connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector", loc, "", (comment,)
            ),
            "topics": Entry("topics", "t", loc),
            "some.setting": Entry("some.setting", value, loc, "", (comment,)),
            "transforms": Entry("transforms", "m", loc, "", (comment,)),
            "transforms.m.type": Entry("transforms.m.type", "org.apache.kafka.connect.transforms.MaskField$Value", loc),
            "transforms.m.fields": Entry("transforms.m.fields", "f", loc),
            "transforms.m.replacement": Entry("transforms.m.replacement", value or "x", loc),
        },
        header=(comment,),
    )
    data = yaml.safe_load(Importer(config).run().text)
    assert data["transforms"][-1]["replacement"] == (value or "x") and data["source"]["topics"] == ["t"]
