"""Install commands in printed text: find them, split them into pip's steps, and collect every
one the site prints (fenced shell blocks in docs/, install lines and fixes in data/)."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from scripts.core import mac_recipes, project_files, yaml_files

ROOT = project_files.ROOT
DOCS = ROOT / "docs"
SYMPTOMS = ROOT / "data" / "symptoms.yml"
# Where an install command starts: an interpreter running pip, pip itself, or conda, each
# optionally after VAR=value settings.
START = re.compile(
    r"(?:\b[A-Z_]+=\S+\s+)*(?:(?:[\w~./-]*/)?python[\d.]*\s+-m\s+pip|\bpip3?|\bconda)\s+"
    r"(?:install|uninstall)\b"
)
TOKEN = re.compile(r'"[^"]*"|\'[^\']*\'|&&|[^\s"\';,()`]+')
# A bare word that can follow `pip install`: an option or a requirement, nothing else.
WORD = re.compile(r"^(?:-[\w-]+(?:=\S+)?|[A-Za-z0-9][\w.\-]*(?:\[[\w,]+\])?(?:[<>=!~]=?\S*)?)$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w-]*)")
SHELL_FENCES = ("console", "bash", "sh", "shell", "")
# Options that change what pip picks; others (--user, --quiet) are left out of the resolution.
KEPT_OPTIONS = ("--upgrade", "-U", "--force-reinstall", "--pre", "--no-deps")
CONDA = "conda"


def canonical(name: str) -> str:
    """A distribution name as pip compares it: lower case, runs of -_. as one '-'."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Step:
    """One pip call of a command: install (pip arguments) or uninstall (package names)."""

    action: str  # "install", "uninstall" or "conda" (not resolved by pip)
    args: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()


def _tokens_from(text: str, start: int) -> list[tuple[str, int]]:
    """The tokens of one command from `start`: stops at ; , ( ) ` or a word that is no option
    or requirement; continues across && only into another install command."""
    tokens, position = [], start
    while True:
        gap = re.match(r"[ \t]*", text[position:])
        position += gap.end()
        if position >= len(text) or text[position] in ";,()`\n":
            return tokens
        if text.startswith("#", position):
            return tokens
        if text.startswith("&&", position):
            if not START.match(text[position + 2 :].lstrip()):
                return tokens
            tokens.append(("&&", position))
            position += 2
            continue
        match = TOKEN.match(text, position)
        if match is None:
            return tokens
        word = match.group()
        if not (word[0] in "\"'" or WORD.match(word) or tokens == [] or _in_head(tokens)):
            return tokens
        tokens.append((word, position))
        position = match.end()


def _in_head(tokens: list[tuple[str, int]]) -> bool:
    """Whether the last token is still part of 'python -m pip install' (or a VAR=value)."""
    words = [word for word, _ in tokens]
    since = words[len(words) - 1 - words[::-1].index("&&") + 1 :] if "&&" in words else words
    return not any(word in ("install", "uninstall") for word in since)


def commands_in(text: str) -> list[str]:
    """Every install command printed in a text, as printed (a chain joined by && stays one)."""
    found, position = [], 0
    while (match := START.search(text, position)) is not None:
        tokens = _tokens_from(text, match.start())
        if not tokens:
            position = match.end()
            continue
        last, at = tokens[-1]
        end = at + len(last)
        found.append(" ".join(text[match.start() : end].split()))
        position = end
    return found


def steps(command: str) -> list[Step]:
    """pip's steps for a command: `pip install A B`, `pip uninstall -y C`, chained by &&."""
    result = []
    for part in command.split("&&"):
        words = shlex.split(part, comments=True)
        while words and re.match(r"^[A-Z_]+=", words[0]):
            words.pop(0)
        if not words:
            continue
        if words[0] == CONDA:
            result.append(Step("conda", tuple(words[2:])))
            continue
        verb = next(i for i, word in enumerate(words) if word in ("install", "uninstall"))
        rest = words[verb + 1 :]
        if words[verb] == "uninstall":
            names = tuple(canonical(w) for w in rest if not w.startswith("-"))
            result.append(Step("uninstall", packages=names))
            continue
        args = tuple(w for w in rest if not w.startswith("-") or w in KEPT_OPTIONS)
        result.append(Step("install", args))
    return result


@dataclass(frozen=True)
class Printed:
    """An install command as the site prints it, and where."""

    command: str
    where: str  # the file (docs/..., data/...) that prints it


def in_fences(markdown: str) -> list[str]:
    """The install commands on the lines of shell code blocks ($ prompts are dropped)."""
    found, fence = [], None
    for line in markdown.splitlines():
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.groups()
            continue
        if fence and line.strip().startswith(fence[0]) and not line.strip().strip("`~"):
            fence = None
            continue
        if fence and fence[1] in SHELL_FENCES:
            found += commands_in(line.strip().removeprefix("$ "))
    return found


def from_docs(docs: Path = DOCS) -> list[Printed]:
    """Commands in the shell blocks of every page, generated fragments included."""
    printed = []
    for page in sorted(docs.rglob("*.md")):
        where = page.relative_to(ROOT).as_posix()
        printed += [Printed(c, where) for c in in_fences(project_files.read_text(page))]
    return printed


def symptom_entries() -> list[dict]:
    """data/symptoms.yml's entries, as stored."""
    return yaml_files.safe_load(project_files.read_text(SYMPTOMS))["symptoms"]


def from_data() -> list[Printed]:
    """Commands in data/: each Mac recipe's install lines and each symptom's fix code."""
    printed = []
    for recipe in mac_recipes.load()["recipes"]:
        for line in recipe["install"]:
            printed += [Printed(c, "data/mac_recipes.json") for c in commands_in(line)]
    recommended = mac_recipes.recommended()
    install = "\n".join(recommended["install"])
    for entry in symptom_entries():
        code = (entry.get("fix_code") or "").replace("{recommended}", install)
        if entry.get("fix_lang", "console") not in SHELL_FENCES:
            continue
        for line in code.splitlines():
            found = commands_in(line.strip().removeprefix("$ "))
            printed += [Printed(c, f"data/symptoms.yml#{entry['id']}") for c in found]
    return printed


def dumps(data: object) -> str:
    """JSON as the record stores it (sorted keys, two-space indent, one final newline)."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
