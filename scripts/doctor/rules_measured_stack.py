"""Which of the guide's measured stacks this environment is (scripts/core/stack_match.py), so a
reader knows whose verdicts on the results page are theirs: matched on TensorFlow's major.minor
and on the Keras that tf.keras loads, or none of them, with the nearest one."""

from __future__ import annotations

from scripts.core import stack_match
from scripts.core.compatibility import minor
from scripts.doctor.checks import Check, Status, is_mac, keras_in_use, tf_version
from scripts.doctor.facts import Facts

NAME = "measured stack"


def tf_keras_loads(f: Facts) -> tuple[str, str | None]:
    """('tf-keras' | 'keras', version): what tf.keras loaded in the child, where it imported;
    otherwise what TF_USE_LEGACY_KERAS and the installed packages make it."""
    module = f.tf.keras_module or ""
    if f.tf.ok and module:
        package = "tf-keras" if module.startswith("tf_keras") else "keras"
        return package, f.packages.get(package) or f.tf.keras_version
    return keras_in_use(f)


def check_measured_stack(f: Facts) -> Check:
    """The measured stack this environment matches, or the nearest, with its verdicts' link."""
    tf = tf_version(f)
    if not tf:
        return Check(NAME, Status.SKIP, "no TensorFlow installed")
    package, version = tf_keras_loads(f)
    if not version:
        return Check(
            NAME,
            Status.SKIP,
            f"tf.keras would be {package}, which is not installed (see the keras check)",
        )
    found = stack_match.match(tf, package, version)
    ids = ", ".join(stack.id for stack in stack_match.load())
    if found.measured:
        text = f"{found.software} as tf.keras: the guide's measured stack {found.id}"
    else:
        text = (
            f"{found.software} as tf.keras ({found.id}): none of the guide's measured stacks "
            f"({ids}); nearest: {found.nearest.id}"
        )
    text += f" ({found.nearest.title}); its verdicts are on the results page"
    text += measured_how(f, found, package, version)
    return Check(NAME, Status.PASS, text, guide=found.nearest.link, note=import_keras_note(f, tf))


def measured_how(f: Facts, found: stack_match.Match, package: str, version: str) -> str:
    """What the verdicts were measured with, where a reader could take them for their own: the
    stack's Keras when it is another minor than the reader's (the match ignores the minor), and
    Linux CPUs when a Mac reads a stack no Mac has measured."""
    parts = []
    if found.stack and minor(version) != minor(found.stack.keras):
        label = "tf-keras" if package == "tf-keras" else "Keras"
        parts.append(f"with {label} {found.stack.keras}, not {version}")
    if is_mac(f) and not found.nearest.mac_measured:
        parts.append("on Linux CPUs only (no Mac has run the snippets)")
    return f", measured {' and '.join(parts)}" if parts else ""


def import_keras_note(f: Facts, tf: str) -> str | None:
    """When tf.keras is tf-keras but the keras package is Keras 3: code that writes `import
    keras` runs on another stack."""
    package, _ = tf_keras_loads(f)
    keras = f.packages.get("keras")
    if package != "tf-keras" or not keras:
        return None
    if stack_match.keras_major("keras", keras, tf) < 3:
        return None
    other = stack_match.match(tf, "keras", keras)
    if other.measured:
        where = f"the guide's stack {other.id} (results page, #stack-{other.id})"
    else:
        where = f"{other.id}, not one the guide measured (nearest: {other.nearest.id})"
    return f"code that writes `import keras` runs on Keras {keras} (Keras 3), which is {where}"
