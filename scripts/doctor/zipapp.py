"""Build tf-doctor.pyz: the doctor as one file that runs in any Python 3.9+ environment.

`python tf-doctor.pyz` checks the environment it is started with (the reader's own, where
they train), with the same rules as `python -m scripts.doctor`; `python tf-doctor.pyz tune
FILE` is `python -m scripts.tune FILE` (the reader's TensorFlow in child processes). The
archive holds only the standard-library modules the doctor and tune need, the data they
read, and packaging's version module (bundled, with its licences). It is built the same way
every time (sorted members, fixed timestamps), so its SHA-256 changes only with its content.

Usage: python -m scripts.doctor.zipapp [OUT]   (default build/tf-doctor.pyz)
"""

from __future__ import annotations

import hashlib
import importlib
import sys
import zipfile
from importlib import metadata
from pathlib import Path

from scripts.core.guide_links import SITE_URL_MEMBER
from scripts.core.project_files import ROOT

NAME = "tf-doctor.pyz"
DEFAULT_OUT = ROOT / "build" / NAME
# What the doctor imports and reads; a test checks the archive runs with nothing else. The
# import-linter contract in pyproject.toml lists the same modules (tests/test_archive_contract.py).
MEMBERS = (
    "scripts/__init__.py",
    "scripts/core/compatibility.py",
    "scripts/core/guide_links.py",
    "scripts/core/mac_recipes.py",
    "scripts/core/project_files.py",
    "scripts/core/version_order.py",
    "scripts/core/__init__.py",
    "scripts/core/provenance.py",
    "scripts/core/software_stack.py",
    "scripts/core/stack_match.py",
    "scripts/doctor/__init__.py",
    "scripts/doctor/__main__.py",
    "scripts/doctor/checks.py",
    "scripts/doctor/facts.py",
    "scripts/doctor/report.py",
    "scripts/doctor/rules.py",
    "scripts/doctor/rules_install.py",
    "scripts/doctor/rules_keras.py",
    "scripts/doctor/rules_measured_stack.py",
    "scripts/doctor/rules_runtime.py",
    "scripts/doctor/tf_child.py",
    # tune: the command, its stage, and the core modules they use (the child's too)
    "scripts/tune.py",
    "scripts/tuning/__init__.py",
    "scripts/tuning/analysis.py",
    "scripts/tuning/child.py",
    "scripts/tuning/experiments.py",
    "scripts/tuning/child_messages.py",
    "scripts/tuning/model_file.py",
    "scripts/tuning/pipeline.py",
    "scripts/tuning/report.py",
    "scripts/tuning/runner.py",
    "scripts/tuning/stack.py",
    "scripts/tuning/template.py",
    "scripts/tuning/tracing.py",
    "scripts/tuning/widening.py",
    "scripts/core/outcomes.py",
    "scripts/core/rounds.py",
    "scripts/core/stats.py",
    "scripts/core/json_files.py",
    "scripts/core/typed_json.py",
    "data/compatibility.json",
    "data/mac_recipes.json",
    "data/measured_stacks.json",  # written from the yml: the archive has no yaml
    "data/tune_spread.json",  # the guide's between-sitting spread, which tune widens by
    "pyproject.toml",
)
# packaging.version compares versions as pip does; it is bundled (with its licences), so the
# archive still needs nothing installed. A test checks it imports only the standard library.
BUNDLED_PACKAGES = {"packaging": ("__init__.py", "version.py")}
MAIN = '''"""tf-doctor.pyz: check this Python environment's TensorFlow set-up (see --help);
`tf-doctor.pyz tune FILE` measures which of the guide's changes speed up your model."""
import sys

if sys.version_info < (3, 9):
    sys.exit("tf-doctor.pyz needs Python 3.9 or later")
if sys.argv[1:2] == ["tune"]:
    from scripts.tune import main as tune

    sys.exit(tune(sys.argv[2:], prog="python tf-doctor.pyz tune"))
from scripts.doctor.__main__ import main

if sys.argv[1:2] in (["-h"], ["--help"]):
    try:
        main(prog="python tf-doctor.pyz")
    finally:  # the doctor's help exits; tune's line comes after it
        print()
        print("also: python tf-doctor.pyz tune FILE  measure which of the guide's changes")
        print("      speed up your model (python tf-doctor.pyz tune --help says more)")
sys.exit(main(prog="python tf-doctor.pyz"))
'''
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def build(out: Path = DEFAULT_OUT, root: Path = ROOT, site_url: str | None = None) -> Path:
    """Write the archive (atomically) and return its path; with the site's address, the
    report's `see:` lines name pages of the published guide."""
    extra = [("__main__.py", MAIN.encode())]
    if site_url:
        extra.append((SITE_URL_MEMBER, site_url.encode()))
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    with open(partial, "wb") as handle:
        handle.write(b"#!/usr/bin/env python3\n")
        with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, data in sorted(
                extra
                + [(member, (root / member).read_bytes()) for member in MEMBERS]
                + bundled_members()
            ):
                info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, data)
    partial.chmod(0o755)
    partial.replace(out)
    return out


def bundled_members() -> list[tuple[str, bytes]]:
    """The bundled packages' modules and licence files, from the installed distributions."""
    members = []
    for package, modules in BUNDLED_PACKAGES.items():
        folder = Path(importlib.import_module(package).__file__).parent
        members += [(f"{package}/{name}", (folder / name).read_bytes()) for name in modules]
        for licence in metadata.distribution(package).files or []:
            if licence.name.startswith("LICENSE"):
                text = licence.locate().read_bytes()
                members.append((f"{package}/{licence.name}", text))
    return members


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = build(Path(args[0]) if args else DEFAULT_OUT)
    print(f"wrote {out} ({out.stat().st_size:,} bytes, SHA-256 {sha256(out)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
