"""YAML text parsed safely with libyaml's parser where PyYAML has it (its wheels for the locked
platforms do), else with PyYAML's own: the same objects, the C parser about ten times faster
(data/sources.yml is half a megabyte, and a render reads it)."""

from __future__ import annotations

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> object:
    """yaml.safe_load(text), with the C parser where there is one."""
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 (a safe loader)
