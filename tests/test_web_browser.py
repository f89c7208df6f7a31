"""The club's web pages in a real browser: Playwright driving Debian's Chromium (`executable_path`), against the club
of tests/web_club.py served on loopback. A member signs in through the link the bot sent him in the chat; opens a
game and steps through a hand with the arrow keys, each trick in turn; Suđenja as a player (the referee by function,
the conversation shown), as a member who did not play (neither), as an official (the names); the council's desk as a
councilor and its 404 for a member; a forged and an expired link refused. Every page is checked by axe-core (from
the npm registry, tests/browser/package.json, installed by `make browser`) injected into it: no violation of impact
"serious" or "critical". A screenshot of every page is kept in tests/artefacts/browser/ (not committed).

Without Chromium, Playwright or axe-core the tests skip and say which is missing (.ci/run installs all three)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from web_club import COUNCILOR, IN_GAME, MODERATOR, OUT_OF_GAME, REFEREE, STRANGER, Scene, build, link_for, serve
from web_club import with_web as web_on

from club import Club, make_club
from rules.play import replay

ROOT = Path(__file__).resolve().parent
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
AXE = ROOT / "browser" / "node_modules" / "axe-core" / "axe.min.js"
SHOTS = ROOT / "artefacts" / "browser"
# Chromium as root in a container, with nothing of its own reaching out (updates, sync, its services).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BLOCKING = {"serious", "critical"}

pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium); .ci/run does it"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None,
        reason="Playwright is not installed (pip install -e '.[test]')",
    ),
    pytest.mark.skipif(
        not AXE.exists(), reason="axe-core is not installed: `make browser` (npm ci in tests/browser); .ci/run does it"
    ),
]


@dataclass
class Browsing:
    club: Club
    scene: Scene
    base: str
    browser: Any  # playwright's Browser (typed loosely: the module may be absent where the tests skip)
    contexts: list[Any] = field(default_factory=list)  # the test's browser profiles, closed after it

    async def profile(self, **options: Any) -> Any:
        """A fresh browser profile (Playwright's context: its own cookies and storage), closed after the test."""
        context = await self.browser.new_context(**options)
        self.contexts.append(context)
        return context

    async def reader(self, nick: str) -> Any:
        """A fresh browser profile signed in as `nick` the way a member signs in: the link `/web` sent him in the
        chat, opened, then its button."""
        context = await self.profile(locale="sr-Latn-RS")
        page = await context.new_page()
        link = await link_for(self.club, nick)
        await page.goto(link)
        await page.get_by_role("button").filter(has_text="Prijavi me").click()
        await page.wait_for_url(f"{self.base}/partije")
        return page


# One Chromium for the module's tests, on the module's event loop (Playwright's objects belong to the loop that
# made them): each test still reads through profiles of its own (`Browsing.profile`), as a new browser would give
# it, and closes them. The tests' `club` is made on that loop too.
pytestmark.append(pytest.mark.asyncio(loop_scope="module"))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def chromium() -> AsyncIterator[Any]:
    from playwright.async_api import async_playwright  # noqa: PLC0415 (only where the tests run)

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest_asyncio.fixture(loop_scope="module")
async def club(tmp_path: Path, backend: str) -> AsyncIterator[Club]:
    made = await make_club(tmp_path)
    yield made
    await made.db.close()


@pytest_asyncio.fixture(loop_scope="module")
async def browsing(club: Club, chromium: Any) -> AsyncIterator[Browsing]:
    scene = await build(club)
    web_on(club)
    SHOTS.mkdir(parents=True, exist_ok=True)
    async with serve(club) as base:
        browsing = Browsing(club, scene, base, chromium)
        try:
            yield browsing
        finally:
            for context in browsing.contexts:
                await context.close()


async def checked(page: Any, name: str) -> None:
    """The page as it stands: its screenshot kept as `name`.png, and axe-core's check of it — no violation of
    impact serious or critical. axe is evaluated through the browser's debugging protocol (as a console would),
    which the page's Content-Security-Policy does not govern: the page itself stays as strict as it is served."""
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    await page.evaluate(AXE.read_text(encoding="utf-8"))
    result = await page.evaluate("async () => JSON.stringify(await axe.run(document))")
    found = json.loads(result)
    assert found["passes"], name  # axe ran its rules over the page
    violations = [v for v in found["violations"] if v["impact"] in BLOCKING]
    assert not violations, (
        name,
        [(v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]]) for v in violations],
    )


async def test_a_member_signs_in_by_the_link_and_steps_through_a_hand_with_the_keys(browsing: Browsing) -> None:
    club, scene = browsing.club, browsing.scene
    page = await browsing.reader("marko")
    await checked(page, "partije")
    assert await page.get_by_role("link", name=str(OUT_OF_GAME), exact=True).count() >= 1
    await page.get_by_role("link", name=str(OUT_OF_GAME), exact=True).first.click()
    await page.wait_for_url(f"{browsing.base}/partije/{OUT_OF_GAME}")
    await checked(page, "partija")
    assert await page.get_by_role("link", name="Prikaz ruke").count() == 1
    game = await club.db.games.get(OUT_OF_GAME)
    assert game is not None
    hand = next(h for h in game.hands if h.tricks)  # the first hand played out (the first may be all passes)
    # The hand's link, followed by its address: a click right after the long page's full-page screenshot (which
    # resizes the view) was at times lost in a full run, and the test then waited for a navigation never started.
    address = f"/partije/{OUT_OF_GAME}/ruke/{hand.n}"
    assert await page.get_by_role("link", name=f"Ruka {hand.n}", exact=True).get_attribute("href") == address
    await page.goto(f"{browsing.base}{address}")
    current = page.locator("li.step.current")
    where = page.locator(".controls output")
    assert await current.get_attribute("id") == "korak-0"  # the deal first, the others hidden
    assert await page.locator("li.step:visible").count() == 1
    await checked(page, "ruka")
    played = replay(hand).tricks
    assert played
    for trick in played:
        await page.keyboard.press("ArrowRight")
        assert await current.get_attribute("id") == f"korak-{trick.number}"
        shown = await current.locator("p.trick").inner_text()
        for position, card in enumerate(trick.cards):
            assert f"{game.players[trick.seat_of(position)]} {card.display()}" in shown, (trick.number, shown)
        assert game.players[trick.winner] in await current.locator("p.taker").inner_text()
        assert (await where.inner_text()).startswith(f"{trick.number + 1} / {len(played) + 2}")
        assert await page.locator("li.step:visible").count() == 1
    await page.keyboard.press("ArrowRight")
    assert await current.get_attribute("id") == "korak-kraj"
    assert page.url.endswith("#korak-kraj")
    await page.keyboard.press("ArrowLeft")
    assert await current.get_attribute("id") == f"korak-{len(played)}"
    # The Arbitar's analysis, in words, to an official.
    official = await browsing.reader(COUNCILOR)
    await official.goto(f"{browsing.base}/partije/{scene.arbitar_game}/ruke/{scene.arbitar_hand}")
    assert await official.get_by_role("heading", name="Analiza Arbitra").count() == 1
    await checked(official, "ruka_arbitar")


async def test_trials_as_a_player_a_member_who_did_not_play_and_an_official(browsing: Browsing) -> None:
    path = f"{browsing.base}/partije/{IN_GAME}/sudjenja"
    player = await browsing.reader("marko")
    await player.goto(path)
    text = await player.locator("main").inner_text()
    assert "reč većnika" in text  # the conversation, to a player of the game
    assert REFEREE not in text  # the referee and the councilor by function only
    assert COUNCILOR not in text
    await checked(player, "sudjenja_igrac")
    stranger = await browsing.reader(STRANGER)
    await stranger.goto(path)
    text = await stranger.locator("main").inner_text()
    assert "marko je odugovlačio" in text  # the verdict and its reason are every member's
    assert "reč " not in text
    assert REFEREE not in text
    await checked(stranger, "sudjenja_clan")
    official = await browsing.reader(MODERATOR)
    await official.goto(path)
    text = await official.locator("main").inner_text()
    assert "reč većnika" in text
    assert REFEREE in text
    assert COUNCILOR in text
    await checked(official, "sudjenja_zvanicnik")


async def test_the_council_desk_for_a_councilor_and_a_404_for_a_member(browsing: Browsing) -> None:
    councilor = await browsing.reader(COUNCILOR)
    await councilor.get_by_role("link", name="Veće").first.click()
    await councilor.wait_for_url(f"{browsing.base}/vece")
    assert await councilor.locator("svg").count() == 3  # the figures' charts
    assert "marko" in await councilor.locator("table.appeals").inner_text()
    await checked(councilor, "vece")
    await councilor.goto(f"{browsing.base}/clan/marko")
    await checked(councilor, "clan_marko")
    member = await browsing.reader("marko")
    assert await member.get_by_role("link", name="Veće").count() == 0
    answer = await member.goto(f"{browsing.base}/vece")
    assert answer is not None
    assert answer.status == 404
    refused = await member.locator("main").inner_text()
    missing = await member.goto(f"{browsing.base}/partije/999999999/sudjenja")
    assert missing is not None
    assert missing.status == 404
    assert await member.locator("main").inner_text() == refused  # refused and missing alike
    await checked(member, "vece_404")
    await member.goto(f"{browsing.base}/clan")
    await checked(member, "clan")


async def test_a_forged_or_expired_link_is_refused(browsing: Browsing) -> None:
    club, base = browsing.club, browsing.base
    context = await browsing.profile()
    page = await context.new_page()
    link = await link_for(club, "marko")
    forged = link[:-4] + ("AAAA" if not link.endswith("AAAA") else "BBBB")
    answer = await page.goto(forged)
    assert answer is not None
    assert answer.status == 400
    assert await page.get_by_role("button").filter(has_text="Prijavi me").count() == 0
    await checked(page, "link_lazni")
    club.clock.advance(timedelta(minutes=11))
    answer = await page.goto(link)
    assert answer is not None
    assert answer.status == 400
    answer = await page.goto(f"{base}/partije")  # still signed out: sent to sign in
    assert answer is not None
    assert page.url == f"{base}/prijava"
    await checked(page, "prijava")
