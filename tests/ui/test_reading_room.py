"""The reading room in a real browser: `kb ui` as a subprocess on a free port, driven by
Playwright through Debian's headless Chromium (never a downloaded browser).

Skips, with the reason, when /usr/bin/chromium or the playwright package is absent.
Screenshots land in tests/ui/artifacts/ (ignored by git).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.server import Running, chromium, kb_ui, reading_room_fleet

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def browser_page(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Any, Running, list[str]]]:
    executable = chromium()
    if executable is None:
        pytest.skip("no /usr/bin/chromium on this machine (apt-get install chromium)")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    tmp = tmp_path_factory.mktemp("reading-room")
    fleet = reading_room_fleet(tmp)
    problems: list[str] = []
    with kb_ui([str(fleet)]) as ui, sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp / "profile"),  # a fresh user-data-dir for every run
            executable_path=executable,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1360, "height": 1000},
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on(
            "console",
            lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
        )

        def request(r: Any) -> None:
            if not r.url.startswith((ui.url + "/", "data:")):
                problems.append(f"request left the machine: {r.url}")

        page.on("request", request)
        page.goto(ui.url + "/")
        page.wait_for_selector("details.shelf")
        try:
            yield page, ui, problems
        finally:
            context.close()


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def ask(page: Any, question: str) -> Any:
    page.fill("#question", question)
    page.press("#question", "Enter")
    return answered(page, question)


def answered(page: Any, question: str) -> Any:
    # Locators only: the page's CSP forbids eval, so no wait_for_function here.
    verdict = page.locator("#answer .verdict", has=page.locator(".word")).and_(
        page.locator(f"[data-question={json.dumps(question)}]")
    )
    verdict.wait_for()
    return verdict


def test_a_question_gets_its_verdict_and_the_right_first_file(browser_page: Any) -> None:
    page, _, problems = browser_page
    verdict = ask(page, "how often should I run a backup restore test")
    assert verdict.get_attribute("data-verdict") == "hit"
    assert verdict.locator(".word").inner_text() == "hit"
    first = page.locator("ol.found > li").first
    assert first.get_attribute("data-rel") == "ada/knowledge/backups.md"
    assert "Backups that actually restore" in first.inner_text()
    assert page.locator(".owner .name").inner_text() == "ada"
    chart = page.locator("svg.chart")
    assert chart.locator("line.floor").count() == 1
    assert chart.locator("rect.bar.above").count() >= 1
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "reading-room-hit.png"), full_page=True)
    assert problems == []


def test_a_refused_question_says_nothing_and_offers_words(browser_page: Any) -> None:
    page, _, problems = browser_page
    verdict = ask(page, "kubernetez crashloop")
    assert verdict.get_attribute("data-verdict") == "nothing"
    assert verdict.locator(".word").inner_text() == "nothing"
    chips = page.locator(".suggestions button.chip")
    assert "kubernetes" in chips.all_inner_texts()
    page.screenshot(path=str(ARTIFACTS / "reading-room-nothing.png"), full_page=True)
    # A suggestion is a question of its own.
    chips.filter(has_text="crashloopbackoff").click()
    assert answered(page, "crashloopbackoff").get_attribute("data-verdict") == "hit"
    assert page.locator("ol.found > li").first.get_attribute("data-rel") == (
        "ada/knowledge/kubernetes-deploys.md"
    )
    assert problems == []


def test_short_memory_is_labelled(browser_page: Any) -> None:
    page, _, problems = browser_page
    ask(page, "o certificado tls do staging expirou")
    first = page.locator("ol.found > li").first
    assert first.get_attribute("data-rel") == "ada/inbox/2026-11-20-session.md"
    assert "short memory" in first.inner_text()
    assert problems == []


def test_open_a_note_and_follow_its_wikilink(browser_page: Any) -> None:
    page, _, problems = browser_page
    page.locator("details.shelf summary", has_text="Ada").first.click()
    page.locator("details.shelf a", has_text="Backups that actually restore").click()
    page.wait_for_selector("article.markdown h1")
    assert page.locator("article.markdown h1").inner_text() == "Backups that actually restore"
    link = page.locator("article.markdown a.wikilink", has_text="database-migrations")
    assert link.count() == 1
    page.screenshot(path=str(ARTIFACTS / "reading-room-note.png"), full_page=True)
    link.click()
    heading = page.locator("article.markdown h1")
    expect(heading).to_have_text("Changing a database schema without downtime")
    assert "knowledge/database-migrations.md" in page.locator(".crumbs").inner_text()
    assert "knowledge/backups.md" in page.locator(".facts").inner_text()  # linked from
    page.go_back()
    expect(heading).to_have_text("Backups that actually restore")
    assert problems == []


def test_check_findings_and_block_costs(browser_page: Any) -> None:
    page, _, problems = browser_page
    page.click("nav.tabs a[data-view=check]")
    row = page.locator("#check tr.finding").first
    row.wait_for()
    text = row.inner_text()
    assert "E02" in text and "ada/knowledge/blank.md" in text
    assert page.locator("#check-count").inner_text() == "1"
    page.screenshot(path=str(ARTIFACTS / "reading-room-check.png"), full_page=True)
    page.click("nav.tabs a[data-view=blocks]")
    card = page.locator("#blocks .card[data-base=ada]")
    card.wait_for()
    assert "identity" in card.inner_text() and "about 412 tokens" in card.inner_text()
    assert "1 listed file is private" in card.inner_text()
    page.click("nav.tabs a[data-view=chat]")
    assert "KB_UI_CHAT" in page.locator("#chat").inner_text()
    assert problems == []


def test_a_private_note_is_not_served(browser_page: Any) -> None:
    page, ui, problems = browser_page
    page.goto(ui.url + "/#read/ada/records/quillfeather-contract.md")
    page.wait_for_selector("#note .card")
    assert "not a file this fleet serves" in page.locator("#note").inner_text()
    assert "quillfeather" not in page.locator("aside.shelves").inner_text().lower()
    # The 404 the page asked for is the refusal itself, not a problem.
    problems[:] = [p for p in problems if "404" not in p]
    assert problems == []
