"""Which of the guide's measured stacks the reader's model ran on (scripts/core/stack_match.py):
the TensorFlow the child imported and the Keras the model was built with, which is what ran
(a model built with `import keras` is Keras 3 even where TF_USE_LEGACY_KERAS=1 makes tf.keras
tf-keras), with the link to that stack's verdicts, or to the nearest measured stack's."""

from __future__ import annotations

from scripts.core import stack_match


def found(facts: dict) -> stack_match.Match | None:
    """The match for the child's facts; None before the model was built."""
    tensorflow, package = facts.get("tensorflow_version"), facts.get("keras_package")
    if not tensorflow or not package:
        return None
    return stack_match.match(tensorflow, package, facts.get("keras_version"))


def summary(facts: dict) -> dict | None:
    """The match as the JSON report keeps it."""
    match = found(facts)
    return match.as_dict() if match else None


def line(facts: dict) -> str | None:
    """The report's Stack line."""
    match = found(facts)
    if match is None:
        return None
    head = f"{match.id}: {match.software} (your model's Keras, `{facts['keras_package']}`)"
    if match.measured:
        return f"{head}, one of the guide's measured stacks; its verdicts: {match.nearest.link}"
    return (
        f"{head}, not a stack the guide measured; the nearest measured stack, "
        f"{match.nearest.id}: {match.nearest.link}"
    )
