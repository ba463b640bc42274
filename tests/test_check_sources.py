"""The online source check (scripts/check_sources.py), offline: saved pages answer its fetches.

tests/fixtures/sources/pages.json maps each address the check asks for to a saved answer: a
page where the quote is present with markup and entities between its words, one where the
words are gone, a 404, a GitHub issue read through the API, and a file read as raw text.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from scripts import check_sources
from scripts.check_sources import Page

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sources"


def saved_fetch(asked: list[str] | None = None):
    answers = json.loads((FIXTURES / "pages.json").read_text(encoding="utf-8"))["answers"]

    def fetch(url: str) -> Page:
        if asked is not None:
            asked.append(url)
        if url not in answers:
            return Page(None, "", "", f"no answer: {url} is not saved")
        status, name = answers[url]
        text = (FIXTURES / name).read_text(encoding="utf-8") if name else ""
        kind = "text/html" if name and name.endswith(".html") else "application/json"
        return Page(status, text, kind, "" if status < 400 else f"HTTP {status} Not Found")

    return fetch


@pytest.fixture(scope="module")
def ledger() -> dict:
    return yaml.safe_load((FIXTURES / "ledger.yml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def report(ledger):
    return check_sources.check(ledger, saved_fetch())


def missing_quotes(report) -> set[tuple[str, str]]:
    return {(entry["id"], item["quote"]) for entry, item in report.missing}


def test_a_quote_with_markup_and_entities_between_its_words_is_found(report):
    present = {quote for name, quote in missing_quotes(report) if name == "present"}
    assert present == {"Keras 2 is always faster"}, present


def test_words_only_in_a_script_style_or_comment_do_not_count(report):
    assert ("present", "Keras 2 is always faster") in missing_quotes(report)


def test_a_quote_no_longer_on_the_page_is_reported(report):
    assert ("changed", "the step took 96 ms") in missing_quotes(report)


def test_a_404_is_a_link_that_is_gone_and_its_quotes_are_not_looked_for(report):
    assert [(entry["id"], what) for entry, what in report.gone] == [("gone", "HTTP 404 Not Found")]
    assert not any(name == "gone" for name, _ in missing_quotes(report))


def test_an_issue_is_read_through_the_api_with_its_comments(report):
    assert not any(name == "thread" for name, _ in missing_quotes(report)), report.missing


def test_a_github_file_is_read_as_its_raw_file():
    asked: list[str] = []
    page = check_sources.read_source(
        "https://github.com/example/project/blob/v1.0/src/optimizer.py#L2-L3", saved_fetch(asked)
    )
    assert asked == ["https://raw.githubusercontent.com/example/project/v1.0/src/optimizer.py"]
    assert page.status == 200 and "_resource_apply_dense" in page.text


def test_a_refused_api_falls_back_to_the_page():
    asked: list[str] = []

    def fetch(url: str) -> Page:
        asked.append(url)
        if url.startswith(check_sources.API):
            return Page(403, "", "", "HTTP 403 rate limit exceeded")
        return Page(200, "<p>GPU results differ</p>", "text/html")

    page = check_sources.read_source("https://github.com/o/r/issues/7", fetch)
    assert page.status == 200 and asked[-1] == "https://github.com/o/r/issues/7"


def test_no_answer_at_all_is_a_link_that_is_gone(ledger):
    def fetch(url: str) -> Page:
        return Page(None, "", "", "no answer: timed out")

    report = check_sources.check({"sources": ledger["sources"][:1]}, fetch)
    assert [what for _, what in report.gone] == ["no answer: timed out"]


@pytest.mark.parametrize(
    ("markup", "quote"),
    [
        ("<p>it&#8217;s <b>fast</b></p>", "it’s fast"),
        ("<p>a&nbsp;&mdash;&nbsp;b</p>", "a — b"),
        ("<td>x</td><td>y</td>", "x y"),
        ("<p>new<br>line</p>", "new line"),
        ("<p>&lt;not a tag&gt; &amp;</p>", "<not a tag> &"),
    ],
)
def test_html_is_compared_as_text(markup, quote):
    assert check_sources.found(quote, check_sources.page_text(Page(200, markup, "text/html")))


def test_the_report_is_markdown_with_every_finding_and_exits_1(tmp_path, capsys):
    out = tmp_path / "report.md"
    status = check_sources.main(
        ["--ledger", str(FIXTURES / "ledger.yml"), "--out", str(out)], fetch=saved_fetch()
    )
    text = out.read_text(encoding="utf-8")
    assert status == 1
    assert "5 sources checked: 1 links gone, 2 quotes not found." in text
    assert "## Links that are gone" in text and "<https://example.org/moved-away>" in text
    assert "## Quotes no longer found" in text and "the step took 96 ms" in text


def test_a_clean_check_exits_0(tmp_path, ledger):
    clean = {"sources": [e for e in ledger["sources"] if e["id"] in ("thread", "code")]}
    path = tmp_path / "ledger.yml"
    path.write_text(yaml.safe_dump(clean), encoding="utf-8")
    out = tmp_path / "report.md"
    assert check_sources.main(["--ledger", str(path), "--out", str(out)], fetch=saved_fetch()) == 0
    assert "Every link answered and every quote was found." in out.read_text(encoding="utf-8")


def test_an_invalid_ledger_exits_2(tmp_path, capsys):
    path = tmp_path / "ledger.yml"
    path.write_text("sources:\n  - id: x\n", encoding="utf-8")
    assert check_sources.main(["--ledger", str(path)], fetch=saved_fetch()) == 2
    err = capsys.readouterr().err
    assert "source x (sources[0]): missing field(s) url" in err and "ledger.yml" in err


# --- .github/workflows/sources.yml: monthly and on demand, one issue, least permissions ---

WORKFLOW = Path(__file__).resolve().parent.parent / ".github" / "workflows" / "sources.yml"


def workflow() -> dict:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def test_the_workflow_runs_monthly_and_on_demand():
    triggers = workflow()["on"]
    assert set(triggers) == {"schedule", "workflow_dispatch"}, "never on push: it needs the web"
    [schedule] = triggers["schedule"]
    minute, hour, day, month, weekday = schedule["cron"].split()
    assert day.isdigit() and 1 <= int(day) <= 28 and month == "*" and weekday == "*"


def test_the_workflow_keeps_the_report_and_writes_only_issues():
    data = workflow()
    assert data["permissions"] == {"contents": "read"}
    check, issue = data["jobs"]["check"], data["jobs"]["issue"]
    assert "permissions" not in check
    assert issue["permissions"] == {"issues": "write"}
    assert "python -m scripts.check_sources --out build/sources/report.md" in "\n".join(
        step.get("run", "") for step in check["steps"]
    )
    uploads = [s for s in check["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and uploads[0]["with"]["path"] == "build/sources/report.md"
    script = "\n".join(step.get("run", "") for step in issue["steps"])
    assert "gh issue create" in script and "gh issue edit" in script and "gh issue close" in script


def test_make_test_never_runs_the_online_check():
    makefile = (WORKFLOW.parents[2] / "Makefile").read_text(encoding="utf-8")
    assert "check_sources" not in makefile


def test_every_quote_of_a_statement_is_looked_for(ledger):
    entry = copy.deepcopy(ledger["sources"][3])  # the thread, whose quote is found
    entry["supports"][0]["quote_2"] = "words the thread never had"
    report = check_sources.check({"sources": [entry]}, saved_fetch())
    assert [item["quote"] for _, item in report.missing] == ["words the thread never had"]
