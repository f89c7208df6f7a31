"""Signing in to the club's pages without passwords (bot/desk/signin.py, bot/web): the one-time link `/web` sends
privately — single use, ten minutes, bound to the account it was sent to —, the session it opens (its cookie's
flags, its end at sign-out, when the link or an office ends, when the member leaves), the rate limits, and the
platforms' logins where configured: the Telegram Login Widget's hash checked with the bot's token, Discord's
OAuth2 code exchanged with `state` against a fake Discord on loopback as strict as the real one."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import replace
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from aiohttp import web
from web_club import LINK, link_for, serve, signed_in, with_web

from bot.desk.signin import LINKS_PER_WINDOW
from bot.registry import BY_NAME, run
from bot.registry.spec import Args, Caller, Place
from club import Club
from storage.states import SessionEnd
from storage.web import token_hash

BOT_TOKEN = "123456:telegram-test-token"


@pytest.fixture
async def base(club: Club) -> AsyncIterator[str]:
    for nick in ("marko", "ivana"):
        await club.member(nick)
    await club.member("vecnikVera", "councilor")
    with_web(club)
    async with serve(club) as address:
        yield address


def jar() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def status_of(session: aiohttp.ClientSession, url: str, method: str = "GET") -> tuple[int, str]:
    async with session.request(method, url, allow_redirects=False) as answer:
        return answer.status, await answer.text()


async def test_web_answers_with_a_private_link_and_the_link_signs_in_once(club: Club, base: str) -> None:
    link = await link_for(club, "marko")
    assert link.startswith(f"{base}/prijava/")
    token = link.rsplit("/", 1)[1]
    stored = await club.db.web.link(token)
    assert stored is not None
    assert (stored.platform, stored.account) == ("test", "marko")
    assert stored.expires_at - stored.created_at == timedelta(minutes=10)
    async with club.db.connection.execute("SELECT count(*) FROM web_links WHERE token_hash = ?", (token,)) as cur:
        row = await cur.fetchone()
    assert row is not None
    assert row[0] == 0  # only the token's hash is kept
    async with jar() as browser:
        status, page = await status_of(browser, link)  # opening it (a chat's preview does) uses nothing
        assert status == 200
        assert f'action="/prijava/{token}"' in page
        assert (await club.db.web.link(token)).used_at is None  # type: ignore[union-attr]
        async with browser.post(link, allow_redirects=False) as used:
            assert used.status == 303
            assert used.headers["Location"] == "/partije"
            cookie = used.headers["Set-Cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=Lax" in cookie
        assert "Path=/" in cookie
        assert f"Max-Age={30 * 86400}" in cookie
        assert "Secure" not in cookie  # plain http: the test's loopback
        status, page = await status_of(browser, f"{base}/partije")
        assert status == 200
        assert "marko" in page
    async with jar() as another:  # the same link again: refused
        status, refused = await status_of(another, link, "POST")
        assert status == 400
        assert "/web" in refused
        status, _ = await status_of(another, f"{base}/partije")
        assert status == 303


async def test_a_forged_or_expired_or_used_link_is_refused_alike(club: Club, base: str) -> None:
    forged = f"{base}/prijava/{'A' * 43}"
    expired = await link_for(club, "marko")
    club.clock.advance(timedelta(minutes=10, seconds=1))
    used = await link_for(club, "ivana")
    async with jar() as first:
        assert (await status_of(first, used, "POST"))[0] == 303
    bodies = set()
    async with jar() as browser:
        for link in (forged, expired, used):
            for method in ("GET", "POST"):
                status, body = await status_of(browser, link, method)
                assert status == 400, (link, method)
                bodies.add(body)
        assert (await status_of(browser, f"{base}/partije"))[0] == 303  # no session
    assert len(bodies) == 1  # nothing tells a forged link from a used one


async def test_a_link_is_bound_to_the_account_it_was_sent_to(club: Club, base: str) -> None:
    link = await link_for(club, "marko")
    marko = await club.get("marko")
    await club.db.links.unlink_account("test", "marko", club.clock.now(), "test")
    assert (await club.db.members.get(marko.id)).account("test") is None  # type: ignore[union-attr]
    async with jar() as browser:
        assert (await status_of(browser, link, "POST"))[0] == 400


async def test_sessions_end_when_the_link_or_the_office_ends_or_at_sign_out(club: Club, base: str) -> None:
    councilor = await signed_in(club, base, "vecnikVera")
    player = await signed_in(club, base, "marko")
    try:
        assert (await status_of(councilor, f"{base}/vece"))[0] == 200
        vera = await club.get("vecnikVera")
        assert (await club.desk.votes.resign(vera, "councilor", "")).ok
        assert (await status_of(councilor, f"{base}/vece"))[0] == 303  # signed out: sent to sign in
        [ended] = [s for s in await sessions(club, vera.id)]
        assert ended == SessionEnd.OFFICE_ENDED
        # marko's account is unlinked: his session ends with it.
        await club.db.links.unlink_account("test", "marko", club.clock.now(), "test")
        assert (await status_of(player, f"{base}/partije"))[0] == 303
        assert await sessions(club, (await club.get("marko")).id) == [SessionEnd.LINK_ENDED]
    finally:
        await councilor.close()
        await player.close()


async def sessions(club: Club, member: int) -> list[SessionEnd | None]:
    rows = await club.db.connection.execute_fetchall("SELECT end_reason FROM web_sessions WHERE member = ?", (member,))
    return [SessionEnd(r[0]) if r[0] else None for r in rows]


async def test_sign_out_needs_the_sessions_form_and_ends_it(club: Club, base: str) -> None:
    browser = await signed_in(club, base, "marko")
    try:
        page = await (await browser.get(f"{base}/partije")).text()
        csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
        assert csrf is not None
        async with browser.post(f"{base}/odjava", data={"csrf": "0" * 32}, allow_redirects=False) as forged:
            assert forged.status == 403
        async with browser.post(
            f"{base}/odjava", data={"csrf": csrf.group(1)}, headers={"Origin": "https://evil.example"}
        ) as elsewhere:
            assert elsewhere.status == 403
        async with browser.post(f"{base}/odjava", data={"csrf": csrf.group(1)}, allow_redirects=False) as out:
            assert out.status == 303
            assert out.headers["Location"] == "/prijava"
        assert (await status_of(browser, f"{base}/partije"))[0] == 303
        assert await sessions(club, (await club.get("marko")).id) == [SessionEnd.SIGNED_OUT]
    finally:
        await browser.close()


async def test_a_session_lasts_its_configured_days(club: Club, base: str) -> None:
    club.desk.config = replace(club.desk.config, web=replace(club.desk.config.web, session_days=2))
    browser = await signed_in(club, base, "marko")
    try:
        club.clock.advance(timedelta(days=2, seconds=-1))
        assert (await status_of(browser, f"{base}/partije"))[0] == 200
        club.clock.advance(timedelta(seconds=2))
        assert (await status_of(browser, f"{base}/partije"))[0] == 303
    finally:
        await browser.close()


async def test_behind_https_the_cookie_is_secure_and_hsts_is_sent(club: Club, base: str) -> None:
    web_settings = replace(club.desk.config.web, public_url="https://klub.example")
    club.desk.config = replace(club.desk.config, web=web_settings)
    link = (await link_for(club, "marko")).replace("https://klub.example", base)
    async with jar() as browser, browser.post(link, allow_redirects=False) as used:
        assert used.status == 303
        cookie = used.headers["Set-Cookie"]
        assert used.headers["Strict-Transport-Security"].startswith("max-age=")
    assert cookie.startswith("__Host-sudija=")
    assert "Secure" in cookie


async def test_sign_in_attempts_are_rate_limited_per_address(club: Club, base: str) -> None:
    async with jar() as browser:
        for _ in range(30):
            assert (await status_of(browser, f"{base}/prijava/{'B' * 43}"))[0] == 400
        async with browser.get(f"{base}/prijava/{'B' * 43}", allow_redirects=False) as limited:
            assert limited.status == 429
            assert int(limited.headers["Retry-After"]) >= 1
            assert "Content-Security-Policy" in limited.headers
        club.clock.advance(timedelta(minutes=1))
        assert (await status_of(browser, f"{base}/prijava/{'B' * 43}"))[0] == 400


async def test_web_refuses_more_links_than_its_window_allows_and_when_off(club: Club, base: str) -> None:
    marko = await club.get("marko")
    caller = Caller("test", "marko", marko, Place.PRIVATE)
    for _ in range(LINKS_PER_WINDOW):
        assert LINK.search((await run(club.desk, caller, BY_NAME["web"], Args({}))).text)
    refused = await run(club.desk, caller, BY_NAME["web"], Args({}))
    assert not refused.ok
    assert LINK.search(refused.text) is None
    club.clock.advance(timedelta(minutes=10))
    assert (await run(club.desk, caller, BY_NAME["web"], Args({}))).ok
    club.desk.config = replace(club.desk.config, web=replace(club.desk.config.web, port=0))
    off = await run(club.desk, caller, BY_NAME["web"], Args({}))
    assert not off.ok
    assert "[web]" in off.text


async def test_web_typed_in_the_clubs_chat_sends_no_link(club: Club, base: str) -> None:
    """Whoever opens a link first is signed in as its member: it is never posted where the others read."""
    marko = await club.get("marko")
    before = await club.db.web.links_since(marko.id, club.clock.now() - timedelta(days=1))
    refused = await run(club.desk, Caller("test", "marko", marko, Place.CLUB), BY_NAME["web"], Args({}))
    assert not refused.ok
    assert LINK.search(refused.text) is None
    assert refused.text == club.desk.voice.refuse("command.private_only").text
    assert await club.db.web.links_since(marko.id, club.clock.now() - timedelta(days=1)) == before


# The Telegram Login Widget ---------------------------------------------------------------------------------
def widget_fields(user: str, auth_date: int, token: str = BOT_TOKEN) -> dict[str, str]:
    fields = {"id": user, "first_name": "Marko", "username": "marko_tg", "auth_date": str(auth_date)}
    checked = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    secret = hashlib.sha256(token.encode()).digest()
    fields["hash"] = hmac.new(secret, checked.encode(), hashlib.sha256).hexdigest()
    return fields


async def test_the_telegram_widget_signs_in_the_linked_account_by_its_hash(
    club: Club, base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUDIJA_TELEGRAM_TOKEN", BOT_TOKEN)
    web_settings = replace(club.desk.config.web, telegram_login=True, telegram_bot="KlubSudijaBot")
    club.desk.config = replace(club.desk.config, web=web_settings)
    marko = await club.get("marko")
    await club.db.members.link("telegram", "5550001", marko.nick, club.clock.now())
    now = int(club.clock.now().timestamp())
    async with jar() as anonymous, anonymous.get(f"{base}/prijava") as page:
        html = await page.text()
        assert 'data-telegram-login="KlubSudijaBot"' in html
        assert "https://telegram.org" in page.headers["Content-Security-Policy"]
    cases: list[tuple[Mapping[str, str], int]] = [
        ({**widget_fields("5550001", now), "first_name": "Mallory"}, 400),  # a field changed after signing
        (widget_fields("5550001", now, "999:another-bot"), 400),  # signed for another bot
        (widget_fields("5550001", now - 2 * 3600), 400),  # too old
        (widget_fields("5550999", now), 400),  # an account linked to nobody
        (widget_fields("5550001", now), 303),
    ]
    for fields, expected in cases:
        async with jar() as browser:
            async with browser.get(f"{base}/prijava/telegram", params=fields, allow_redirects=False) as answer:
                assert answer.status == expected, fields
            if expected == 303:
                status, page_text = await status_of(browser, f"{base}/partije")
                assert status == 200
                assert "marko" in page_text


# Discord's OAuth2 -------------------------------------------------------------------------------------------
class FakeDiscordOAuth:
    """Discord's OAuth2 endpoints as strict as the real ones: the code is single use, bound to the client and the
    redirect URI it was issued for; the token only reads who the user is."""

    def __init__(self, client_id: str, secret: str, user: str) -> None:
        self.client_id, self.secret, self.user = client_id, secret, user
        self.codes: dict[str, str] = {}  # code → redirect_uri
        self.tokens: set[str] = set()

    def issue(self, redirect_uri: str) -> str:
        code = f"code{len(self.codes)}"
        self.codes[code] = redirect_uri
        return code

    async def token(self, request: web.Request) -> web.Response:
        form = await request.post()
        if form.get("client_id") != self.client_id or form.get("client_secret") != self.secret:
            return web.json_response({"error": "invalid_client"}, status=401)
        code = str(form.get("code", ""))
        if form.get("grant_type") != "authorization_code" or self.codes.pop(code, None) != form.get("redirect_uri"):
            return web.json_response({"error": "invalid_grant"}, status=400)
        token = f"token-{code}"
        self.tokens.add(token)
        return web.json_response({"access_token": token, "token_type": "Bearer", "scope": "identify"})

    async def me(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization", "").removeprefix("Bearer ") not in self.tokens:
            return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)
        return web.json_response({"id": self.user, "username": "marko"})


async def test_discord_oauth2_checks_its_state_and_exchanges_the_code(
    club: Club, base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeDiscordOAuth("4242", "s3cret", "777000111222333444")
    app = web.Application()
    app.router.add_post("/api/oauth2/token", fake.token)
    app.router.add_get("/api/users/@me", fake.me)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    monkeypatch.setenv("SUDIJA_DISCORD_CLIENT_SECRET", "s3cret")
    web_settings = replace(club.desk.config.web, discord_client_id="4242", discord_api=f"http://127.0.0.1:{port}/api")
    club.desk.config = replace(club.desk.config, web=web_settings)
    marko = await club.get("marko")
    await club.db.members.link("discord", fake.user, marko.nick, club.clock.now())
    try:
        async with jar() as browser:
            async with browser.get(f"{base}/prijava/discord", allow_redirects=False) as started:
                assert started.status == 303
                sent_to = urlsplit(started.headers["Location"])
            query = {k: v[0] for k, v in parse_qs(sent_to.query).items()}
            assert sent_to.path == "/api/oauth2/authorize"
            assert query["client_id"] == "4242"
            assert query["scope"] == "identify"
            redirect_uri = query["redirect_uri"]
            assert redirect_uri == f"{base}/prijava/discord/povratak"
            back = f"{base}/prijava/discord/povratak"
            # Discord sends the browser back: another state (a login forced by another site) is refused.
            forged = {"code": fake.issue(redirect_uri), "state": "not-the-state"}
            assert (await browser.get(back, params=forged, allow_redirects=False)).status == 400
            good = {"code": fake.issue(redirect_uri), "state": query["state"]}
            async with browser.get(back, params=good, allow_redirects=False) as answer:
                assert answer.status == 303
            status, page = await status_of(browser, f"{base}/partije")
            assert status == 200
            assert "marko" in page
        async with jar() as replayed:  # the same code again, without the state's cookie: refused
            assert (await replayed.get(back, params=good, allow_redirects=False)).status == 400
    finally:
        await runner.cleanup()
    stored = await club.db.connection.execute_fetchall("SELECT via FROM web_sessions WHERE member = ?", (marko.id,))
    assert [r[0] for r in stored] == ["discord_oauth"]


def test_only_the_tokens_hash_is_stored() -> None:
    assert token_hash("abc") == hashlib.sha256(b"abc").hexdigest()
