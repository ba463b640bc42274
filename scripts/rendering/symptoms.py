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

from scripts.core import data_formats, mac_recipes
from scripts.core.catalog import ROOT

DATA = ROOT / "data" / "symptoms.yml"
DOCS = ROOT / "docs"
OUTPUT = "symptoms/all.md"
TOP_OUTPUT = "symptoms/top.md"
PAGE = "symptoms.md"
ERAS = {  # the page's words for each era the schema allows (a test holds the two equal)
    "ML Compute fork": "Apple's ML Compute fork (`tensorflow_macos`, 2020–21)",
    "tensorflow-metal": "the tensorflow-metal plugin (2021 on)",
    "both": "both eras (the ML Compute fork and tensorflow-metal)",
}
INCLUDE = re.compile(r'^\s*--8<--\s+"([^":]+)"\s*$', re.MULTILINE)
EXTENSIONS = [
    "toc", "attr_list", "md_in_html", "tables", "admonition", "footnotes",
    "pymdownx.superfences", "pymdownx.details", "pymdownx.tabbed",
]  # fmt: skip


class SymptomsError(ValueError):
    """data/symptoms.yml breaks its schema or a rule between its fields or with docs/."""


@cache
def load(path: Path = DATA) -> dict:
    """The file as stored, checked: {'groups': [...], 'symptoms': [...]}."""
    try:
        data = data_formats.read(path, "symptoms")
    except data_formats.FormatError as error:
        raise SymptomsError(str(error)) from error
    check(data, path.name)
    return data


def check(data: dict, where: str = "symptoms.yml") -> None:
    """Each field as data/symptoms.schema.json defines it; then what a schema cannot say: ids
    used once, a known group, also_seen and search_text only on verbatim entries, search text
    copied from the message, links that resolve in docs/."""
    try:
        data_formats.check(data, Path(where), "symptoms")
    except data_formats.FormatError as error:
        raise SymptomsError(str(error)) from error
    groups = [group["id"] for group in data["groups"]]
    seen: set[str] = set()
    for group in data["groups"]:
        _check_id(group["id"], f"{where}: group {group['id']!r}", seen)
    for number, entry in enumerate(data["symptoms"]):
        at = f"{where}: symptoms[{number}] ({entry['id']})"
        _check_id(entry["id"], at, seen)
        if entry["group"] not in groups:
            raise SymptomsError(f"{at}: group must be one of {groups}")
        if entry.get("also_seen") and not entry["verbatim"]:
            raise SymptomsError(f"{at}: also_seen needs verbatim: true")
        problem = search_text_problem(entry)
        if problem:
            raise SymptomsError(f"{at}: search_text {problem}")
        for link in [entry["guide"], *entry.get("see_also", [])]:
            problem = link_problem(link)
            if problem:
                raise SymptomsError(f"{at}: guide/see_also {link!r}: {problem}")


def message_lines(entry: dict) -> list[str]:
    """The lines of an entry's verbatim message and of its other versions' wordings."""
    texts = [entry["what_you_see"], *(other["text"] for other in entry.get("also_seen", []))]
    return [line.strip() for text in texts for line in text.splitlines() if line.strip()]


def search_text_problem(entry: dict) -> str | None:
    """Why an entry's optional `search_text` is not usable, or None (its length and spaces are
    the schema's)."""
    if "search_text" not in entry:
        return None
    text = entry["search_text"]
    if not entry["verbatim"]:
        return "needs verbatim: true (it is a part of the copied message)"
    if not any(text in line for line in message_lines(entry)):
        return "must be copied from one line of what_you_see or of an also_seen text"
    return None


def _check_id(value: str, at: str, seen: set[str]) -> None:
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
    # One source a line: a run of thread titles in one sentence reads as one long sentence.
    sources = [f"- [{s['title']}]({s['url']})" for s in entry["sources"]]
    lines += [evidence, "", "**Sources:**", "", *sources, ""]
    return lines


def render(data: dict | None = None) -> str:
    """The Symptoms and fixes page's body: a jump list, then each group with its entries."""
    data = data or load()
    groups = data["groups"]
    count = len(data["symptoms"])
    lines = [f"{count} symptoms, in {len(groups)} groups:", ""]
    # The jump list as a list: on one line, the group titles read as one long sentence.
    lines += [f"- [{g['title']}](#{g['id']})" for g in groups]
    lines += [""]
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
