"""`python -m scripts.stack_env STACK` builds that measured stack's environment from its lock
(`make stack-env STACK=...`); stacks are listed in data/measured_stacks.yml."""

import sys

from scripts.core import measured_stacks
from scripts.installs import stack_environment


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        known = ", ".join(stack.id for stack in measured_stacks.load())
        print(f"usage: python -m scripts.stack_env STACK (one of {known})", file=sys.stderr)
        return 2
    try:
        stack_environment.build(measured_stacks.by_id(argv[0]))
    except measured_stacks.StackError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
