"""The Telegram bot's HTTP client: python-telegram-bot's requests carried by aiohttp instead of its default
httpx, for the bot's own requests and for its long polling.

Why: a burst of button presses (a call's Sudi button pressed by a whole club at once) is a burst of
answerCallbackQuery requests, and the press is answered only when its request leaves the bot. Through httpx
(httpcore 1.0 under anyio 4) httpcore's connection pool scans every waiting request for every request (quadratic
in the burst) and looks for the absent ``sniffio`` module on disk each time, so the CPU a burst costs grows with
its square before the last answer is even sent; aiohttp (already the Discord library's client) has no such scan.
What each costs, as bench/platforms.py measures it: docs/telegram.md, "For developers".

The long poll's client (`UpdatesRequest`) also leaves out what the bot never reads of a pressed message: its
formatting (``entities``), which PTB would otherwise build into an object per entity — a call's notice carries a
mention per referee, so every press of a burst on it paid for as many objects before the first of them was even
answered (docs/telegram.md). The handlers read of a pressed message only its chat, id, keyboard and topic.

Everything above the wire is PTB's own: `BaseRequest.post` builds the parameters and reads Telegram's answers
(errors, flood control, ``retry_after``), the rate limiter wraps the calls; this class only moves bytes. Like
PTB's default it honours HTTP(S)_PROXY and NO_PROXY from the environment, read once per host (aiohttp's own
``trust_env`` would read them, and ~/.netrc, in a worker thread for every request).
"""

from __future__ import annotations

from typing import Any

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from telegram.error import NetworkError, TimedOut
from telegram.request import BaseRequest, RequestData
from yarl import URL

#: PTB's HTTPXRequest defaults (seconds), kept so every timeout means what it meant there.
CONNECT_TIMEOUT = 5.0
READ_TIMEOUT = 5.0
WRITE_TIMEOUT = 5.0
MEDIA_WRITE_TIMEOUT = 20.0
POOL_TIMEOUT = 1.0


def _chosen(value: object, default: float | None) -> float | None:
    """The timeout a call asked for, or this client's own where it left it to the default (PTB passes its
    `BaseRequest.DEFAULT_NONE` marker then, an object that is neither a number nor None)."""
    if value is None or isinstance(value, int | float):
        return value
    return default


def _total(*parts: float | None) -> float | None:
    """aiohttp has no write timeout: a request as a whole is bounded by the sum of its phases' timeouts."""
    return None if any(p is None for p in parts) else sum(p for p in parts if p is not None)


class AiohttpRequest(BaseRequest):
    def __init__(
        self,
        *,
        connection_pool_size: int = 256,
        connect_timeout: float | None = CONNECT_TIMEOUT,
        read_timeout: float | None = READ_TIMEOUT,
        write_timeout: float | None = WRITE_TIMEOUT,
        media_write_timeout: float | None = MEDIA_WRITE_TIMEOUT,
        pool_timeout: float | None = POOL_TIMEOUT,
    ) -> None:
        """`connection_pool_size`: connections open at once (PTB's default: 256 for the bot's requests, 1 for
        getUpdates); the timeouts as in PTB's HTTPXRequest."""
        self.pool_size = connection_pool_size
        self.connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self.write_timeout = write_timeout
        self.media_write_timeout = media_write_timeout
        self.pool_timeout = pool_timeout
        self._session: aiohttp.ClientSession | None = None
        self._proxies: dict[tuple[str, str], tuple[URL | None, aiohttp.BasicAuth | None]] = {}

    @property
    def read_timeout(self) -> float | None:
        return self._read_timeout

    async def initialize(self) -> None:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(limit=self.pool_size)
            self._session = aiohttp.ClientSession(connector=connector)

    async def shutdown(self) -> None:
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def proxy_for(self, url: str) -> tuple[URL | None, aiohttp.BasicAuth | None]:
        """The environment's proxy for this URL's host (None: connect directly), looked up once per host."""
        parsed = URL(url)
        key = (parsed.scheme, parsed.host or "")
        if key not in self._proxies:
            try:
                self._proxies[key] = get_env_proxy_for_url(parsed)
            except LookupError:
                self._proxies[key] = (None, None)
        return self._proxies[key]

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: object = BaseRequest.DEFAULT_NONE,
        write_timeout: object = BaseRequest.DEFAULT_NONE,
        connect_timeout: object = BaseRequest.DEFAULT_NONE,
        pool_timeout: object = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if self._session is None or self._session.closed:
            raise RuntimeError("This AiohttpRequest is not initialized!")
        files = request_data.multipart_data if request_data is not None else None
        fields = request_data.json_parameters if request_data is not None else None
        data: aiohttp.FormData | dict[str, str] | None = fields  # url-encoded, as PTB's own client sends it
        if files:
            form = aiohttp.FormData()
            for name, value in (fields or {}).items():
                form.add_field(name, value)
            for name, (filename, content, mimetype) in files.items():
                form.add_field(name, content, filename=filename, content_type=mimetype)
            data = form
        read = _chosen(read_timeout, self._read_timeout)
        connect = _chosen(connect_timeout, self.connect_timeout)
        pool = _chosen(pool_timeout, self.pool_timeout)
        write = _chosen(write_timeout, self.media_write_timeout if files else self.write_timeout)
        timeout = aiohttp.ClientTimeout(
            total=_total(pool, connect, write, read),
            connect=_total(pool, connect),
            sock_connect=connect,
            sock_read=read,
        )
        proxy, proxy_auth = self.proxy_for(url)
        try:
            async with self._session.request(
                method,
                url,
                data=data,
                headers={"User-Agent": self.USER_AGENT},
                timeout=timeout,
                proxy=proxy,
                proxy_auth=proxy_auth,
            ) as response:
                return response.status, await response.read()
        except TimeoutError as error:  # aiohttp's timeouts are TimeoutErrors (ServerTimeoutError too)
            raise TimedOut from error
        except aiohttp.ClientError as error:
            raise NetworkError(f"aiohttp.{error.__class__.__name__}: {error}") from error


#: What the bot never reads of the message a button was pressed on (handlers.py reads its chat, id, keyboard and
#: topic): left out of each callback query before PTB builds its objects.
UNREAD_OF_PRESSED = ("entities", "caption_entities")


class UpdatesRequest(AiohttpRequest):
    """The long poll's client (one connection, as PTB's default for getUpdates): `AiohttpRequest`, reading
    Telegram's answers without the pressed messages' formatting."""

    def __init__(self) -> None:
        super().__init__(connection_pool_size=1)

    @staticmethod
    def parse_json_payload(payload: bytes) -> dict[str, Any]:
        """PTB's own parsing (`BaseRequest.parse_json_payload`, its documented hook), then each callback query's
        message without `UNREAD_OF_PRESSED`."""
        data = BaseRequest.parse_json_payload(payload)
        updates = data.get("result") if isinstance(data, dict) else None
        for update in updates if isinstance(updates, list) else ():
            query = update.get("callback_query") if isinstance(update, dict) else None
            message = query.get("message") if isinstance(query, dict) else None
            if isinstance(message, dict):
                for key in UNREAD_OF_PRESSED:
                    message.pop(key, None)
        return data
