"""YAML text parsed safely with libyaml's parser where PyYAML has it (its wheels for the locked
platforms do), else with PyYAML's own: the same objects, the C parser about ten times faster
(data/sources.yml is half a megabyte, and a render reads it). Two things PyYAML accepts are
refused, as json_files refuses them in JSON: a key given twice in one mapping (PyYAML keeps the
last; a reviewer reads the first) and .nan or .inf, which pass a JSON Schema's "number"."""

from __future__ import annotations

import math
from collections.abc import Hashable

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class StrictLoader(SAFE_LOADER):
    """The safe loader, refusing a repeated key and a non-finite float with the line."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if not isinstance(key, Hashable):  # PyYAML names an unhashable key itself
                    continue
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {str(key)[:80]!r} appears twice in one mapping",
                        key_node.start_mark,
                    )  # fmt: skip
                seen.add(key)
        return super().construct_mapping(node, deep)

    def construct_finite_float(self, node):
        value = self.construct_yaml_float(node)
        if not math.isfinite(value):
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a finite number", node.start_mark
            )
        return value


StrictLoader.add_constructor("tag:yaml.org,2002:float", StrictLoader.construct_finite_float)


def safe_load(text: str) -> object:
    """yaml.safe_load(text), with the C parser where there is one, refusing a repeated key and
    a non-finite float (yaml.YAMLError, naming the line)."""
    return yaml.load(text, Loader=StrictLoader)  # noqa: S506 (a safe loader)
