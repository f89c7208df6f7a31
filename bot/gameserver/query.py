"""The questions the bot asks the game server (protocol v1.1): ``hand_in_progress``, the table's hand in progress
for the referee. A question changes nothing, so it is no outbox row: it is posted at once to
``{url}/v1/commands``, signed, with a key of its own, and the referee waits for it at most
``query_timeout_seconds``. Every answer but a hand is a reason the hand is not available (`Unavailable`): a v1
game server does not know the question (``422`` naming ``type``), and a game server that does not answer in time
or fails is said to.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any

import aiohttp

from bot.gameserver.protocol import IDEMPOTENCY_HEADER, Key, command_doc, encode, signed_headers
from bot.ports import HandInProgress, Unavailable


class GameServerQuery:
    def __init__(
        self,
        url: str,
        key: bytes | Key,
        clock: Callable[[], datetime],
        timeout: float = 5.0,
        session: aiohttp.ClientSession | None = None,
    ) -> None:
        self.url = url.rstrip("/") + "/v1/commands"
        self.key = key
        self.clock = clock
        self.timeout = aiohttp.ClientTimeout(total=timeout)
        self._session = session
        self._own_session = session is None

    async def close(self) -> None:
        if self._own_session and self._session is not None:
            await self._session.close()
            self._session = None

    async def ask(self, kind: str, data: dict[str, Any]) -> tuple[int, Any]:
        """(status, the answer's JSON, or None when it is not JSON); raises what aiohttp raises on no answer."""
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=self.timeout)
        key = f"sudija-ask-{secrets.token_hex(12)}"
        body = encode(command_doc(kind, data, key))
        headers = {**signed_headers(self.key, body, self.clock()), IDEMPOTENCY_HEADER: key}
        async with self._session.post(self.url, data=body, headers=headers, timeout=self.timeout) as response:
            text = await response.text()
            try:
                return response.status, json.loads(text)
            except ValueError:
                return response.status, None

    async def hand_in_progress(self, game: int) -> HandInProgress:
        try:
            status, answer = await self.ask("hand_in_progress", {"game": game})
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            return HandInProgress(None, Unavailable.NO_ANSWER, f"{type(exc).__name__}: {exc}"[:200])
        if not isinstance(answer, dict):
            if status >= 500:
                return HandInProgress(None, Unavailable.NO_ANSWER, f"{status}")
            return HandInProgress(None, Unavailable.INVALID, f"{status}: the answer is not a JSON object")
        if 200 <= status < 300:
            if answer.get("hand") is None:
                return HandInProgress(None, Unavailable.NONE)
            return HandInProgress(answer)
        detail = f"{status} {str(answer.get('error', ''))[:200]}".strip()
        if status in (400, 404, 422) and answer.get("field") == "type":
            return HandInProgress(None, Unavailable.UNSUPPORTED, detail)
        if status >= 500:
            return HandInProgress(None, Unavailable.NO_ANSWER, detail)
        return HandInProgress(None, Unavailable.REFUSED, detail)
