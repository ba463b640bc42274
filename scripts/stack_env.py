"""`python -m scripts.stack_env STACK` builds that measured stack's environment from its lock
(`make stack-env STACK=...`); `--all` builds every stack that has an environment of its own
(`make stack-envs`, which `make test` runs: the tests run every snippet on every stack).
Stacks are listed in data/measured_stacks.yml."""

import sys

from scripts.core import measured_stacks
from scripts.installs import stack_environment


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        known = ", ".join(stack.id for stack in measured_stacks.load())
        print(f"usage: python -m scripts.stack_env STACK|--all (STACK one of {known})",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        if argv[0] == "--all":
            stacks = [stack for stack in measured_stacks.load() if stack.lock is not None]
        else:
            stacks = [measured_stacks.by_id(argv[0])]
        for stack in stacks:
            stack_environment.build(stack)
    except measured_stacks.StackError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
