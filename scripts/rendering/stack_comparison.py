"""Each factor page's "Across TensorFlow and Keras versions" part: which stack the page's figures
are from, whether Set up's recommended Mac recipe is another stack, and on every machine measured
with more than one stack, each claim's speed-up and verdict per stack side by side
(stack_verdicts gives the figures). Stacks go by their short names ("TF 2.16 + Keras 3"), never
by their ids."""

from __future__ import annotations

from pathlib import Path

from scripts.core import mac_recipes, measured_stacks, stack_match
from scripts.core.catalog import ROOT
from scripts.core.claims import short_name
from scripts.findings import stack_moves
from scripts.findings.pairs import Findings
from scripts.rendering import escaping, names, stack_verdicts

OUTPUT_DIR = "stacks"  # docs/_generated/stacks/<page>.md


def output_name(page: str) -> str:
    return f"{OUTPUT_DIR}/{Path(page).with_suffix('').as_posix()}.md"


SETUP_RECIPE = "setup.md#which-stack-to-install-on-a-mac"


def stack_name_link(stack: str) -> str:
    """'[TF 2.16 + Keras 3](results.md#stack-tf216-keras3)': the stack's verdicts."""
    label = escaping.escape(names.stack(stack))
    return f"[{label}]({stack_verdicts.RESULTS_PAGE}#stack-{stack})"


def stack_words(stack: str) -> str:
    """'[TF 2.16 + Keras 3](results.md#stack-tf216-keras3) (TensorFlow 2.16.2 with Keras 3.10)'."""
    return f"{stack_name_link(stack)} ({stack_verdicts.stack_title(stack)})"


def recommended_stack(recipes: dict | None = None) -> str | None:
    """The measured stack whose TensorFlow and Keras, with the recipe's own tensorflow-metal
    (no measured stack has one), the doctor identifies as Set up's recommended Mac recipe
    (mac_recipes.identify), or None where no measured stack has them."""
    recipes = recipes or mac_recipes.load()
    best = mac_recipes.recommended(recipes)
    for listed in measured_stacks.load():
        major = stack_match.keras_major(listed.keras_package, listed.keras, listed.tensorflow)
        found = mac_recipes.identify(
            listed.tensorflow, best["match"]["metal"], f"keras{major}", recipes
        )
        if found is best:
            return listed.id
    return None


def recommended_words(shown: str, recipes: dict | None = None) -> str:
    """Whether Set up's recommended Mac recipe installs the TensorFlow and Keras of the stack
    the figures are from (shown)."""
    setup = f"[Set up's recommended Mac recipe]({SETUP_RECIPE}) installs"
    found = recommended_stack(recipes)
    if found is None:
        return f"{setup} a TensorFlow and Keras that no measured stack has."
    if found == shown:
        return f"{setup} this stack's TensorFlow and Keras."
    return f"{setup} the TensorFlow and Keras of another stack, {stack_name_link(found)}."


def page_fragment(
    claim_list: list[dict],
    stack_data: list[dict],
    page: str,
    root: Path = ROOT,
    findings: Findings | None = None,
) -> str:
    """The part for one page, rendered from the results: never typed."""
    measured = {d["stack"] for d in stack_data}
    shown = f"from {stack_words(measured_stacks.DEFAULT)} on every machine"
    lines = (
        [
            f"The tables and charts on this page are {shown}.",
            "The claims above give a row for each stack measured.",
        ]
        if len(measured) > 1
        else [f"The tables, charts and verdicts on this page are {shown}."]
    )
    lines.append(recommended_words(measured_stacks.DEFAULT))
    missing = [s for s in stack_verdicts.all_stacks(stack_data) if s not in measured]
    if missing:
        unmeasured = ", ".join(stack_words(s) for s in missing)
        lines.append(f"Not measured yet on any machine: {unmeasured}.")
    page_claims = [c for c in claim_list if c["page"] == page]
    if not any(claim.get("evidence") for claim in page_claims):
        lines.append("No claim on this page has evidence measured by this project's scripts.")
        return " ".join(lines) + "\n"
    machines = {
        machine: stacks
        for machine, stacks in stack_verdicts.stacks_measured(stack_data).items()
        if len(stacks) > 1
    }
    if not machines:
        lines.append("No machine has more than one stack measured yet, so there is no comparison.")
        return " ".join(lines) + "\n"
    blocks = [" ".join(lines)]
    found = stack_verdicts.figures(page_claims, stack_data, root, findings)
    for machine, stacks in machines.items():
        blocks.append(machine_table(found, machine, stacks))
    blocks.append(
        "Each cell: the speed-up pooled over that stack's sittings, its 95% interval for the "
        "long run, and what that interval says of the claim's range (the same for every stack). "
        "[What changed between stacks](stack-changes.md) lists every claim that moved."
    )
    return "\n\n".join(blocks) + "\n"


def machine_table(found: list[stack_verdicts.Figure], machine: str, stacks: list[str]) -> str:
    """One machine's claims (rows) by stack (columns); 'not measured' where a stack lacks one."""
    mine = [f for f in found if f.machine == machine]
    if not mine:
        return f"No claim on this page is measured on machine `{machine}` with these stacks."
    header = "| Claim | Compared | " + " | ".join(stack_name_link(s) for s in stacks) + " |"
    lines = [
        f"**On {names.machine(mine[0].machine)}:**",
        "",
        header,
        "|---|---|" + "---|" * len(stacks),
    ]
    for group in stack_moves.grouped(mine).values():
        first = group[0]
        variant, baseline = (short_name(first.evidence[k]) for k in ("variant", "baseline"))
        by_stack = {figure.stack: stack_verdicts.words(figure) for figure in group}
        cells = [by_stack.get(stack, "not measured") for stack in stacks]
        lines.append(
            f"| {first.claim['id']} | {names.compared(first.evidence, variant, baseline)} | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)
