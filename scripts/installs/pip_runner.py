"""Run pip's resolver as if on the reader's machine (a standalone script: stdlib and pip only).

Run as `python -I -S pip_runner.py PIP_ROOT SITE MARKERS_JSON -- PIP_ARGS...`. The process sees
only the standard library, pip (from PIP_ROOT, a folder or pip's wheel) and SITE, a folder
of stand-in `.dist-info` records: the packages the reader's environment already holds, so pip
keeps what satisfies a command and replaces what does not, as it would there.

pip evaluates environment markers (`python_version < "3.12"`, `platform_system == "Darwin"`)
against the interpreter that runs it, not the `--platform` and `--python-version` it is given;
MARKERS_JSON is the target's marker environment, which pip's packaging reads instead.
"""

import importlib.machinery
import json
import sys


class _PipOnly:
    """Finds the top-level `pip` package in one folder and nothing else there."""

    def __init__(self, root):
        self.root = root

    def find_spec(self, name, path=None, target=None):
        if name != "pip":
            return None
        return importlib.machinery.PathFinder.find_spec(name, [self.root])


def main(argv):
    pip_root, site, markers_json, separator, *pip_args = argv
    if separator != "--":
        raise SystemExit("usage: pip_runner.py PIP_ROOT SITE MARKERS_JSON -- PIP_ARGS...")
    sys.path.insert(0, site)
    sys.meta_path.insert(0, _PipOnly(pip_root))
    target = json.loads(markers_json)

    from pip._vendor.packaging import markers

    markers.default_environment = lambda: dict(target)
    from pip._internal.cli.main import main as pip_main

    return pip_main(pip_args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
