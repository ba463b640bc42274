"""Keep AutoGraph out of tf-keras's own code in a snippet test's run, as TF 2.21's rules do.

TF 2.21's AutoGraph rules (autograph/core/config.py) list DoNotConvert('tf_keras') beside
'keras'; TF 2.16.2's list names only 'keras'. There a tf-keras training step's first trace
converts tf-keras itself: about 20 s a process on the 2-core Xeon (threads/small_model, one
variant: 20.4 s, 0.9 s without). The snippet's own code is converted either way.

The snippet tests ask for it with TF_KERAS_UNCONVERTED=1 (tests/test_snippets.py says
where). A run in this process calls tf_keras_autograph(); a fork inherits the rule; a new
process started as `python -m tests.autograph_rules PROGRAM ARG...` adds it when TensorFlow
loads its rules, then runs PROGRAM as `python PROGRAM ARG...` would
(tests/forked_program.py starts the program's runs of itself that way where it cannot fork).
"""

from __future__ import annotations

import importlib.abc
import os
import sys

TF_KERAS_UNCONVERTED = "SNIPPET_CHECK_TF_KERAS_UNCONVERTED"
CONFIG_MODULE = "tensorflow.python.autograph.core.config"


def asked(environ=None) -> bool:
    """Whether the run's environment (this process's if None) asks for the rule."""
    return (os.environ if environ is None else environ).get(TF_KERAS_UNCONVERTED) == "1"


def leave_tf_keras_unconverted(config) -> str:
    """Add DoNotConvert('tf_keras') to the rules of AutoGraph's config module unless there;
    says which rules the run then uses."""
    rules = config.CONVERSION_RULES
    if any(isinstance(r, config.DoNotConvert) and r.matches("tf_keras") for r in rules):
        return "tensorflow's rules"  # already left out (TF 2.21)
    # The way TensorFlow's own tests add a rule (autograph/core/converter_testing.py).
    config.CONVERSION_RULES = (config.DoNotConvert("tf_keras"), *rules)
    return "tf_keras left unconverted"


def tf_keras_autograph() -> str:
    """The rule in this process (TensorFlow imported) where the environment asks for it;
    says which rules the run uses."""
    if not asked():
        return "tensorflow's rules"
    from tensorflow.python.autograph.core import config  # noqa: PLC0415 - only when asked

    return leave_tf_keras_unconverted(config)


class RuleOnImport(importlib.abc.MetaPathFinder):
    """Adds the rule as AutoGraph's config module finishes loading, so that nothing is
    imported before the program asks for it (its environment settings come first)."""

    def find_spec(self, name, path, target=None):
        if name != CONFIG_MODULE:
            return None
        sys.meta_path.remove(self)
        from importlib.util import find_spec  # noqa: PLC0415

        spec = find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            leave_tf_keras_unconverted(module)

        spec.loader.exec_module = exec_module
        return spec


def main(argv: list[str]) -> int:
    """Run `python PROGRAM ARG...` here, with the rule added at TensorFlow's import if asked."""
    from tests.forked_program import exec_as_main  # noqa: PLC0415 - -m runs this file first

    if asked():
        sys.meta_path.insert(0, RuleOnImport())
    if sys.path and sys.path[0] == os.getcwd():
        sys.path.pop(0)  # `python -m` put the current directory first; `python PROGRAM` does not
    return exec_as_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
