"""The symptom index (data/symptoms.yml): load and check it, render the Symptoms and fixes page.

`render()` gives the page's entries, grouped; `render_top()` the Home page's list of the most
common ones. Every `guide` and `see_also` link must name a heading that exists in docs/.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

import markdown
import yaml

from scripts.core import mac_recipes, symptom_readers
from scripts.core.catalog import ROOT

DATA = ROOT / "data" / "symptoms.yml"
DOCS = ROOT / "docs"
OUTPUT = "symptoms/all.md"
TOP_OUTPUT = "symptoms/top.md"
PAGE = "symptoms.md"
FIELDS = (
    "id", "title", "era", "group", "verbatim", "what_you_see", "cause", "fix", "doctor",
    "guide", "sources",
)  # fmt: skip
ERAS = {
    "ML Compute fork": "Apple's ML Compute fork (`tensorflow_macos`, 2020–21)",
    "tensorflow-metal": "the tensorflow-metal plugin (2021 on)",
    "both": "both eras (the ML Compute fork and tensorflow-metal)",
}
FIX_LANGS = ("console", "py")  # "py", not "python": pytest-codeblocks runs python fences
SEARCH_TEXT_MIN = 20  # shorter fixed parts match too much of the page to find one entry
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
INCLUDE = re.compile(r'^\s*--8<--\s+"([^":]+)"\s*$', re.MULTILINE)
EXTENSIONS = [
    "toc", "attr_list", "md_in_html", "tables", "admonition", "footnotes",
    "pymdownx.superfences", "pymdownx.details", "pymdownx.tabbed",
]  # fmt: skip


class SymptomsError(ValueError):
    """data/symptoms.yml has an entry with a missing or wrong field."""


@cache
def load(path: Path = DATA) -> dict:
    """The file as stored, checked: {'groups': [...], 'symptoms': [...]}."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise SymptomsError(f"{path.name}: not valid YAML: {error}") from error
    check(data, path.name)
    return data


def check(data: dict, where: str = "symptoms.yml") -> None:
    """Every entry has its fields, a known era and group, https sources and links that resolve."""
    if not isinstance(data, dict) or not data.get("groups") or not data.get("symptoms"):
        raise SymptomsError(f"{where}: expected a mapping with 'groups' and 'symptoms' lists")
    groups = [group.get("id") for group in data["groups"]]
    seen: set[str] = set()
    for group in data["groups"]:
        _check_id(group.get("id"), f"{where}: group {group.get('id')!r}", seen)
        if not group.get("title"):
            raise SymptomsError(f"{where}: group {group['id']!r}: missing field 'title'")
    for number, entry in enumerate(data["symptoms"]):
        at = f"{where}: symptoms[{number}] ({entry.get('id', '?')})"
        for field in FIELDS:
            if field not in entry or (entry[field] in ("", []) and field != "doctor"):
                raise SymptomsError(f"{at}: missing field {field!r}")
        _check_id(entry["id"], at, seen)
        if entry["era"] not in ERAS:
            raise SymptomsError(f"{at}: era must be one of {list(ERAS)}")
        if entry["group"] not in groups:
            raise SymptomsError(f"{at}: group must be one of {groups}")
        if not isinstance(entry["verbatim"], bool) or not isinstance(entry.get("top", False), bool):
            raise SymptomsError(f"{at}: verbatim and top must be true or false")
        if entry["doctor"] is not None and not isinstance(entry["doctor"], str):
            raise SymptomsError(f"{at}: doctor must be a check name or null")
        for other in entry.get("also_seen", []):
            if not entry["verbatim"] or not isinstance(other, dict):
                raise SymptomsError(f"{at}: also_seen needs verbatim: true and a list of entries")
            if not other.get("when") or not other.get("text"):
                raise SymptomsError(f"{at}: every also_seen entry needs 'when' and 'text'")
        problem = search_text_problem(entry)
        if problem:
            raise SymptomsError(f"{at}: search_text {problem}")
        if entry.get("fix_lang", "console") not in FIX_LANGS:
            raise SymptomsError(f"{at}: fix_lang must be one of {FIX_LANGS}")
        # onto (optional): the environments the fix code's readers run it in, each a mapping
        # of python, packages (name==version) and env (scripts/core/symptom_readers.py).
        try:
            symptom_readers.readers(entry, at)
        except symptom_readers.ReadersError as error:
            raise SymptomsError(str(error)) from error
        for link in [entry["guide"], *entry.get("see_also", [])]:
            problem = link_problem(link)
            if problem:
                raise SymptomsError(f"{at}: guide/see_also {link!r}: {problem}")
        if "#" not in entry["guide"]:
            raise SymptomsError(f"{at}: guide must name a section, as page.md#anchor")
        for source in entry["sources"]:
            if not source.get("title") or not str(source.get("url", "")).startswith("https://"):
                raise SymptomsError(f"{at}: every source needs a title and an https url")


def message_lines(entry: dict) -> list[str]:
    """The lines of an entry's verbatim message and of its other versions' wordings."""
    texts = [entry["what_you_see"], *(other["text"] for other in entry.get("also_seen", []))]
    return [line.strip() for text in texts for line in text.splitlines() if line.strip()]


def search_line(entry: dict) -> str:
    """What a reader pastes into the site search to find a verbatim entry: its `search_text`
    (the fixed part of a message whose addresses, paths or sizes vary), else its longest line."""
    return entry.get("search_text") or max(message_lines(entry), key=len)


def search_text_problem(entry: dict) -> str | None:
    """Why an entry's optional `search_text` is not usable, or None."""
    if "search_text" not in entry:
        return None
    text = entry["search_text"]
    if not entry["verbatim"]:
        return "needs verbatim: true (it is a part of the copied message)"
    if not isinstance(text, str) or len(text.strip()) < SEARCH_TEXT_MIN or text != text.strip():
        return f"must be a string of at least {SEARCH_TEXT_MIN} characters, without outer spaces"
    if not any(text in line for line in message_lines(entry)):
        return "must be copied from one line of what_you_see or of an also_seen text"
    return None


def _check_id(value: object, at: str, seen: set[str]) -> None:
    if not isinstance(value, str) or not SLUG.match(value):
        raise SymptomsError(f"{at}: id must be a lower-case slug (a-z, 0-9, '-')")
    if value in seen:
        raise SymptomsError(f"{at}: id {value!r} is used twice")
    seen.add(value)


def link_problem(link: str) -> str | None:
    """Why 'page.md#anchor' does not resolve in docs/, or None when it does."""
    page, _, anchor = link.partition("#")
    if not page.endswith(".md") or not (DOCS / page).is_file():
        return f"docs/{page} does not exist"
    if anchor and anchor not in headings(page):
        return f"docs/{page} has no heading with the id {anchor!r}"
    return None


@cache
def headings(page: str) -> dict[str, str]:
    """{id: text} of the headings of docs/<page>, includes expanded, with MkDocs' ids."""
    text = (DOCS / page).read_text(encoding="utf-8")
    text = INCLUDE.sub(lambda m: _included(m.group(1)), text)
    converter = markdown.Markdown(extensions=EXTENSIONS)
    converter.convert(text)
    found: dict[str, str] = {}

    def walk(tokens: list[dict]) -> None:
        for token in tokens:
            found[token["id"]] = html.unescape(token["name"])
            walk(token["children"])

    walk(converter.toc_tokens)
    return found


def _included(path: str) -> str:
    file = ROOT / path
    return file.read_text(encoding="utf-8") if file.is_file() else ""


def _link(link: str) -> str:
    """'page.md#anchor' as a Markdown link named after the section, then the page."""
    page, _, anchor = link.partition("#")
    title = next(iter(headings(page).values()), page)  # the page's first heading, its title
    if not anchor:
        return f"[{title}]({link})"
    return f"[{headings(page)[anchor]}]({link}) ({title})"


def _fix_code(entry: dict) -> list[str]:
    code = entry.get("fix_code")
    if not code:
        return []
    recipe = mac_recipes.recommended()
    low, high = recipe["python"]
    install = "\n".join(f"$ {line}" for line in recipe["install"])
    code = code.replace("{recommended}", install)
    code = code.replace("{recommended_python}", f"{low} to {high}")
    return ["", f"```{entry.get('fix_lang', 'console')}", code, "```"]


def _entry(entry: dict) -> list[str]:
    doctor = (
        f"the `{entry['doctor']}` check of the [doctor](doctor.md) reports it"
        if entry["doctor"]
        else "no check of the [doctor](doctor.md) detects this"
    )
    lines = [
        f"### {entry['title']} {{#{entry['id']}}}",
        "",
        f"*Era: {ERAS[entry['era']]}. Doctor: {doctor}.*",
        "",
    ]
    if entry["verbatim"]:
        lines += [f"**What you see.** {entry.get('when', '')}".rstrip(), ""]
        lines += ["```text", entry["what_you_see"].rstrip("\n"), "```", ""]
        for other in entry.get("also_seen", []):  # the same message in another version's words
            lines += [other["when"].strip(), "", "```text", other["text"].rstrip("\n"), "```", ""]
    else:
        lines += [f"**What you see.** {entry['what_you_see']}", ""]
    lines += [f"**Cause.** {entry['cause']}", ""]
    lines += [f"**Fix.** {entry['fix']}", *_fix_code(entry), ""]
    evidence = f"**Evidence:** {_link(entry['guide'])}."
    corrections = entry.get("see_also", [])
    if corrections:
        evidence += " See also " + ", ".join(_link(link) for link in corrections) + "."
    sources = ", ".join(f"[{s['title']}]({s['url']})" for s in entry["sources"])
    lines += [evidence, "", f"**Sources:** {sources}.", ""]
    return lines


def render(data: dict | None = None) -> str:
    """The Symptoms and fixes page's body: a jump list, then each group with its entries."""
    data = data or load()
    groups = data["groups"]
    count = len(data["symptoms"])
    jump = " · ".join(f"[{g['title']}](#{g['id']})" for g in groups)
    lines = [f"{count} symptoms, in {len(groups)} groups: {jump}.", ""]
    for group in groups:
        entries = [e for e in data["symptoms"] if e["group"] == group["id"]]
        if not entries:
            continue
        lines += [f"## {group['title']} {{#{group['id']}}}", ""]
        for entry in entries:
            lines += _entry(entry)
    return "\n".join(lines).rstrip("\n") + "\n"


def render_top(data: dict | None = None) -> str:
    """The Home page's list: the entries marked `top`, linking into the symptom page."""
    data = data or load()
    top = [e for e in data["symptoms"] if e.get("top")]
    lines = [f"- [{e['title']}]({PAGE}#{e['id']})" for e in top]
    lines += [
        "",
        f"All {len(data['symptoms'])} symptoms, with the exact error messages, causes, fixes and "
        f"sources, are on [Symptoms and fixes]({PAGE}).",
    ]
    return "\n".join(lines) + "\n"
