"""The club's web face as an aiohttp application: the pages of `bot.registry.pages` and the sign-in.

It translates and renders, deciding nothing: a request becomes the `Caller` its session proves
(`SignInDesk.session_member`, re-checked on every request) and the page's arguments from its address and form;
`bot.registry.show` runs the page's use case under the same rules as the chat, and the value is written by the
package's templates in the reader's language (`/jezik`) on the club's clock. A page its reader may not see —
refused for any reason, or not there — answers 404 with the same body as an address that does not exist, so a
refusal confirms nothing. A visitor not signed in is sent to the sign-in page, whatever he asked for.

Every answer carries the security headers (`SECURITY_HEADERS`: a strict Content-Security-Policy — scripts and
styles from this site only, no inline script —, no framing, no referrer, no sniffing; HSTS behind HTTPS) and is
not cached. An error inside is logged and answered with a plain page: never a traceback.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import web
from markupsafe import Markup

from bot.config import Config
from bot.desk import Desk
from bot.desk.archive import GamePage
from bot.desk.refused import Refused
from bot.desk.signin import LINK_LIFETIME, SIGN_IN_PATH, Opened, SignedIn
from bot.ports import Document
from bot.registry import NotShown, show
from bot.registry.pages import CLAN, PARTIJA, PARTIJE, SUDJENJA, VECE, ZAPISNIK, Page
from bot.registry.spec import Caller, Place
from bot.web.limits import RateLimit
from bot.web.logins import DiscordOAuth, LoginRefused, telegram_account
from bot.web.render import Words, council_charts, figures_csv, setup_templates
from rules.members import Member, sits_at_council

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
SIGN_INS_PER_MINUTE = 30  # per client address: a link opened or used, a platform's login started or returning
STATE_COOKIE = "sudija_oauth"
STATE_MINUTES = 10

DESK: web.AppKey[Desk] = web.AppKey("desk", Desk)
LIMIT: web.AppKey[RateLimit] = web.AppKey("limit", RateLimit)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class Reader:
    """Who reads, as his session proves him: the member, and the session (its platform account)."""

    signed_in: SignedIn
    token: str

    @property
    def member(self) -> Member:
        return self.signed_in.member

    @property
    def caller(self) -> Caller:
        return Caller(self.signed_in.platform, self.signed_in.account, self.member, Place.PRIVATE)  # his page alone

    @property
    def csrf(self) -> str:
        """The token a form of his session carries (sign-out): derived from the session's own token."""
        return hmac.new(self.token.encode(), b"csrf", hashlib.sha256).hexdigest()[:32]


READER: web.RequestKey[Reader | None] = web.RequestKey("reader", object)  # type: ignore[arg-type]


def cookie_name(config: Config) -> str:
    """`__Host-` behind HTTPS (the browser then keeps it only Secure, for this host, on /)."""
    return "__Host-sudija" if config.web.secure else "sudija"


def security_headers(config: Config, path: str) -> dict[str, str]:
    """The headers every answer carries. The sign-in page may load Telegram's widget where it is configured."""
    script, frame = "'self'", "'none'"
    if path == "/prijava" and config.web.telegram_login:
        script, frame = "'self' https://telegram.org", "https://oauth.telegram.org"
    headers = {
        "Content-Security-Policy": (
            f"default-src 'none'; script-src {script}; style-src 'self'; img-src 'self' data:; "
            f"frame-src {frame}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        ),
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
        "Cache-Control": "no-store",
    }
    if config.web.secure:
        headers["Strict-Transport-Security"] = "max-age=31536000"
    return headers


# Middleware: headers, errors, the reader ------------------------------------------------------------------
@web.middleware
async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Security headers on every answer; an error inside logged and answered plainly (never a traceback);
    `Server-Timing` says how long the page took."""
    config = request.app[DESK].config
    started = time.perf_counter()
    response: web.StreamResponse
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if exc.status >= 400:
            response = await error_page(request, exc.status)
            if "Retry-After" in exc.headers:
                response.headers["Retry-After"] = exc.headers["Retry-After"]
        else:
            response = web.Response(status=exc.status, headers=exc.headers)
    except Exception:
        log.exception("web page %s failed", request.path)
        response = await error_page(request, 500)
    response.headers.update(security_headers(config, request.path))
    response.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


@web.middleware
async def reading(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The reader his session cookie proves (None: signed out); every page but the sign-in's and the static files
    sends a visitor not signed in to sign in."""
    desk = request.app[DESK]
    token = request.cookies.get(cookie_name(request.app[DESK].config), "")
    reader = None
    if token and len(token) < 200:
        found = await desk.signin.session_member(token)
        if found is not None:
            reader = Reader(found, token)
    request[READER] = reader
    if reader is None and not request.path.startswith(("/prijava", "/static/")):
        raise web.HTTPSeeOther("/prijava")
    return await handler(request)


# Rendering --------------------------------------------------------------------------------------------------
async def page(request: web.Request, template: str, status: int = 200, **context: Any) -> web.Response:
    """A template in the reader's language (his `/jezik`, else the club's)."""
    desk = request.app[DESK]
    reader = request.get(READER)
    member = reader.member if reader is not None else None
    async with desk.voice.reading(member):
        words = Words(desk.voice.messages)
        values = {
            "w": words,
            "t": words.t,
            "reader": reader,
            "council": member is not None and sits_at_council(desk.lookups.roles_of(member)),
            "config": request.app[DESK].config,
            "plavac_name": desk.voice.plavac_name(),  # the club's own names, else the reader's words
            "league_name": desk.voice.league_name(),
            **context,
        }
        response: web.Response = aiohttp_jinja2.render_template(template, request, values, status=status)
        return response


async def error_page(request: web.Request, status: int) -> web.Response:
    """The one page of each error: a 404 says the same whatever was refused or missing."""
    key = {404: "web.not_found", 429: "web.too_fast", 400: "web.bad_request"}.get(status, "web.error")
    return await page(request, "greska.html", status=status, message_key=key)


async def shown(request: web.Request, page_decl: Page[Any], values: Mapping[str, str]) -> Any:
    """The page's value for its reader, or 404 (`NotShown`: refused, not there, mistyped)."""
    reader = request[READER]
    assert reader is not None  # `reading` sent everyone else to sign in
    value = await show(request.app[DESK], reader.caller, page_decl, values)
    if isinstance(value, NotShown):
        raise web.HTTPNotFound()
    return value


def _values(request: web.Request, **path: str) -> dict[str, str]:
    values = {k: v for k, v in request.query.items() if isinstance(v, str)}
    values.update(path)
    return values


# The pages ----------------------------------------------------------------------------------------------------
async def home(request: web.Request) -> web.StreamResponse:
    raise web.HTTPSeeOther("/partije")


async def partije(request: web.Request) -> web.StreamResponse:
    value = await shown(request, PARTIJE, _values(request))
    return await page(request, "partije.html", p=value)


async def partija(request: web.Request) -> web.StreamResponse:
    value: GamePage = await shown(request, PARTIJA, _values(request, partija=request.match_info["partija"]))
    return await page(request, "partija.html", p=value, sheet=functools.partial(score_sheet, request, value))


def score_sheet(request: web.Request, value: GamePage, words: Words) -> Markup:
    """The paper's score sheet (_sheet.html) in `words`' language. It is made from the kept paper alone (its
    version), the language, whether names are shown and whether its hands are linked; so it is made once for each
    of these and kept with the paper (`KeptPaper.derived`), dropped when the game or its changes are written."""

    def make() -> Markup:
        template = aiohttp_jinja2.get_env(request.app).get_template("_sheet.html")
        return Markup(template.render(p=value, w=words, t=words.t))

    if value.kept is None:
        return make()
    return value.kept.derived(("web.sheet", words.lang, value.names, value.hands is not None), make)


async def ruka(request: web.Request) -> web.StreamResponse:
    number = request.match_info["partija"]
    value = await shown(request, PARTIJA, {"partija": number, "ruka": request.match_info["ruka"]})
    if value.hand is None:  # he may not see the cards: as a page that is not there
        raise web.HTTPNotFound()
    return await page(request, "ruka.html", p=value, h=value.hand)


async def sudjenja(request: web.Request) -> web.StreamResponse:
    value = await shown(request, SUDJENJA, {"partija": request.match_info["partija"]})
    return await page(request, "sudjenja.html", p=value)


async def zapisnik(request: web.Request) -> web.StreamResponse:
    document: Document = await shown(request, ZAPISNIK, {"sudjenje": request.match_info["sudjenje"]})
    return web.Response(
        body=document.data,
        content_type="text/html",
        charset="utf-8",
        headers={"Content-Disposition": f'attachment; filename="{document.name}"'},
    )


async def clan(request: web.Request) -> web.StreamResponse:
    values = _values(request)
    if "clan" in request.match_info:
        values["clan"] = request.match_info["clan"]
    value = await shown(request, CLAN, values)
    return await page(request, "clan.html", p=value)


async def vece(request: web.Request) -> web.StreamResponse:
    value = await shown(request, VECE, _values(request))
    return await page(request, "vece.html", p=value, charts=council_charts(value.figures))


async def vece_csv(request: web.Request) -> web.StreamResponse:
    value = await shown(request, VECE, _values(request))
    desk = request.app[DESK]
    reader = request[READER]
    async with desk.voice.reading(reader.member if reader else None):
        text = figures_csv(value.figures, desk.t, value.start, value.end)
    return web.Response(
        text=text,
        content_type="text/csv",
        charset="utf-8",
        headers={"Content-Disposition": 'attachment; filename="statistika.csv"'},
    )


# Signing in and out -------------------------------------------------------------------------------------------
def _address(request: web.Request) -> str:
    if request.app[DESK].config.web.forwarded:
        forwarded = request.headers.get("X-Forwarded-For", "")
        if forwarded:
            return forwarded.split(",")[-1].strip()
    return request.remote or "?"


def _throttled(request: web.Request) -> None:
    wait = request.app[LIMIT].attempt(_address(request))
    if wait is not None:
        raise web.HTTPTooManyRequests(headers={"Retry-After": str(max(1, int(wait.total_seconds()) + 1))})


def _same_origin(request: web.Request) -> None:
    """A form posted from another site is refused (the session cookie is SameSite=Lax; this also holds the
    sign-in's own form)."""
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return
    ours = urlsplit(request.app[DESK].config.web.base_url)
    theirs = urlsplit(origin)
    if (theirs.scheme, theirs.netloc) != (ours.scheme, ours.netloc) and theirs.netloc != request.host:
        raise web.HTTPForbidden()


async def sign_in_page(request: web.Request) -> web.StreamResponse:
    if request.get(READER) is not None:
        raise web.HTTPSeeOther("/partije")
    return await page(request, "prijava.html", discord=bool(request.app[DESK].config.web.discord_client_id))


async def link_page(request: web.Request) -> web.StreamResponse:
    """The link the bot sent, opened: a button that signs in. Opening it uses nothing (a chat's link preview
    fetches it too); the button's POST does."""
    _throttled(request)
    token = request.match_info["token"]
    if not await request.app[DESK].signin.link_usable(token):
        return await page(request, "greska.html", status=400, message_key="web.link_refused")
    return await page(request, "link.html", token=token, minutes=LINK_LIFETIME)


async def use_link(request: web.Request) -> web.StreamResponse:
    _throttled(request)
    _same_origin(request)
    try:
        opened = await request.app[DESK].signin.open_by_link(request.match_info["token"])
    except Refused:
        return await page(request, "greska.html", status=400, message_key="web.link_refused")
    return _signed_in(request, opened)


async def telegram_login(request: web.Request) -> web.StreamResponse:
    _throttled(request)
    config = request.app[DESK].config
    token = config.telegram.token
    if not config.web.telegram_login or token is None:
        raise web.HTTPNotFound()
    desk = request.app[DESK]
    try:
        account = telegram_account(dict(request.query), token, desk.now())
        opened = await desk.signin.open_by_account("telegram", account)
    except (LoginRefused, Refused) as why:
        log.info("a Telegram login was refused: %s", why)
        return await page(request, "greska.html", status=400, message_key="web.login_refused")
    return _signed_in(request, opened)


def _discord(request: web.Request) -> DiscordOAuth:
    settings = request.app[DESK].config.web
    secret = settings.discord_secret
    if not settings.discord_client_id or secret is None:
        raise web.HTTPNotFound()
    back = f"{settings.base_url}/prijava/discord/povratak"
    return DiscordOAuth(settings.discord_client_id, secret, back, settings.discord_api)


async def discord_start(request: web.Request) -> web.StreamResponse:
    _throttled(request)
    oauth = _discord(request)
    state = secrets.token_urlsafe(24)
    response = redirect(oauth.authorize_url(state))
    response.set_cookie(
        STATE_COOKIE,
        state,
        max_age=STATE_MINUTES * 60,
        path="/prijava/discord",
        httponly=True,
        secure=request.app[DESK].config.web.secure,
        samesite="Lax",
    )
    return response


async def discord_back(request: web.Request) -> web.StreamResponse:
    _throttled(request)
    oauth = _discord(request)
    state, kept = request.query.get("state", ""), request.cookies.get(STATE_COOKIE, "")
    code = request.query.get("code", "")
    if not state or not kept or not hmac.compare_digest(state, kept) or not code:
        return await page(request, "greska.html", status=400, message_key="web.login_refused")
    try:
        account = await oauth.account(code)
        opened = await request.app[DESK].signin.open_by_account("discord", account)
    except (LoginRefused, Refused) as why:
        log.info("a Discord login was refused: %s", why)
        return await page(request, "greska.html", status=400, message_key="web.login_refused")
    response = _signed_in(request, opened)
    response.del_cookie(STATE_COOKIE, path="/prijava/discord")
    return response


def redirect(location: str) -> web.Response:
    """303 See Other: after a form, the browser GETs `location` (a redirect that sets or clears a cookie)."""
    return web.Response(status=303, headers={"Location": location})


def _signed_in(request: web.Request, opened: Opened) -> web.Response:
    config = request.app[DESK].config
    response = redirect("/partije")
    response.set_cookie(
        cookie_name(config),
        opened.token,
        max_age=int(timedelta(days=config.web.session_days).total_seconds()),
        path="/",
        httponly=True,
        secure=config.web.secure,
        samesite="Lax",
    )
    return response


async def sign_out(request: web.Request) -> web.StreamResponse:
    _same_origin(request)
    reader = request[READER]
    form = await request.post()
    if reader is None or not hmac.compare_digest(str(form.get("csrf", "")), reader.csrf):
        raise web.HTTPForbidden()
    await request.app[DESK].signin.sign_out(reader.token)
    response = redirect("/prijava")
    response.del_cookie(cookie_name(request.app[DESK].config), path="/")
    return response


def web_app(desk: Desk) -> web.Application:
    """The club's pages over `desk`, as its configuration says (`[web]`, and `[telegram]`'s token for the
    widget)."""
    app = web.Application(middlewares=[guarded, reading], client_max_size=64 * 1024)
    app[DESK] = desk
    setup_templates(app)
    app[LIMIT] = RateLimit(SIGN_INS_PER_MINUTE, timedelta(minutes=1), desk.now)
    app.router.add_get("/", home)
    app.router.add_get("/partije", partije)
    app.router.add_get("/partije/{partija}", partija)
    app.router.add_get("/partije/{partija}/ruke/{ruka}", ruka)
    app.router.add_get("/partije/{partija}/sudjenja", sudjenja)
    app.router.add_get("/sudjenja/{sudjenje}/zapisnik", zapisnik)
    app.router.add_get("/clan", clan)
    app.router.add_get("/clan/{clan}", clan)
    app.router.add_get("/vece", vece)
    app.router.add_get("/vece/statistika.csv", vece_csv)
    app.router.add_get("/prijava", sign_in_page)
    app.router.add_get("/prijava/telegram", telegram_login)
    app.router.add_get("/prijava/discord", discord_start)
    app.router.add_get("/prijava/discord/povratak", discord_back)
    app.router.add_get(SIGN_IN_PATH + "{token}", link_page)
    app.router.add_post(SIGN_IN_PATH + "{token}", use_link)
    app.router.add_post("/odjava", sign_out)
    app.router.add_static("/static/", STATIC, show_index=False, follow_symlinks=False)
    return app
