"""A results file from a stranger cannot put markup, links or scripts on the site.

The hostile file skips validation on purpose (json.loads, not results.read): it stands for a
file that slipped past `make validate`, so the renderer's escaping alone must keep it text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.core import claims
from scripts.findings import results_views
from scripts.rendering import render, results_page
from tests.site_build import build_site, copy_project, keep_only_pages

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(3)>"
LINK = "[link](javascript:alert(2))"
HOSTILE = {
    "description": f"{SCRIPT} **bold** {LINK}",
    "cpu_model": IMAGE,
    "os_version": '<svg onload=alert(4)> " onmouseover="alert(5)',
    "tf_devices": ["<iframe src=javascript:alert(6)>"],
}
HOSTILE_LABEL = "<a href='javascript:alert(7)'>x</a> | `code` {: onclick=alert(8) }"
HOSTILE_OUTPUT = "fine\n```\n<script>alert(9)</script>\n```"
PAGES = ["", "results/", "input-pipeline/", "measuring/", "claims/", "memory/", "how-we-measure/"]


def hostile_copy(real: dict) -> dict:
    data = json.loads(json.dumps(real))
    data["machine"].update(HOSTILE)
    for session in data["sessions"]:
        session["origin"] = HOSTILE_LABEL
        for entry in session["entries"].values():
            entry["label"] = HOSTILE_LABEL
        for output in session["outputs"].values():
            output["text"] = HOSTILE_OUTPUT
    return data


@pytest.fixture(scope="module")
def hostile_site(browser_available, tmp_path_factory) -> Path:
    """A copy of the project whose first results file is hostile, rendered and built: only
    the pages visited here (the whole site is built once, for the other tests)."""
    copy = tmp_path_factory.mktemp("hostile") / "project"
    copy_project(ROOT, copy)
    files = sorted((copy / "results").glob("*.json"))
    stored = [json.loads(path.read_text(encoding="utf-8")) for path in files]
    stored[0] = hostile_copy(stored[0])
    files[0].write_text(json.dumps(stored[0]), encoding="utf-8")
    all_data = results_views.unchecked_views(stored)
    rendered = render.render_all(
        all_data, claims.load(copy / "data" / "claims"), results_page.load_reference(), copy
    )
    out_dir = copy / "docs" / "_generated"
    for name, text in rendered.items():
        (out_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / name).write_text(text, encoding="utf-8")
    keep_only_pages(copy, [f"{path.rstrip('/') or 'index'}.md" for path in PAGES])
    # Not --strict: the real build's strictness is tested elsewhere; this build checks only
    # what a hostile file does to the pages it keeps.
    return build_site(copy, copy / "site", strict=False)


@pytest.fixture(scope="module")
def hostile_url(hostile_site, serve_directory):
    return serve_directory(hostile_site)


# Every element that carries an on* attribute, a javascript: URL, or is a script/iframe/svg
# the page did not ship (Material's own scripts have a src under assets/ or are JSON data).
FIND_INJECTED = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const value = attr.value.trim().toLowerCase();
      if (attr.name.startsWith('on')) found.push(el.tagName + ' ' + attr.name);
      if (value.startsWith('javascript:')) found.push(el.tagName + ' ' + attr.name + '=' + value);
    }
    if (el.tagName === 'SCRIPT' && /alert\\(/.test(el.textContent)) found.push('SCRIPT alert');
    if (el.tagName === 'IFRAME') found.push('IFRAME');
  }
  return found;
}"""


@pytest.mark.parametrize("path", PAGES)
def test_hostile_strings_render_as_text(context, hostile_url, path):
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        response = page.goto(hostile_url + path, wait_until="load")
        assert response is not None and response.status == 200
        page.wait_for_timeout(300)
        injected = page.evaluate(FIND_INJECTED)
        text = page.inner_text("body")
    finally:
        page.close()
    assert not dialogs, f"/{path}: a script from the results file ran: {dialogs}"
    assert not injected, f"/{path}: elements from the results file: {injected}"
    if path in ("", "results/"):
        # The strings are there, shown as the text they are.
        assert SCRIPT in text and "**bold**" in text and LINK in text, text[:2000]
