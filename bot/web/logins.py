"""The platforms' own logins, where the club configured them: what each proves is an account on that platform
(the desk then finds the member linked to it, `SignInDesk.open_by_account`).

- **The Telegram Login Widget**: Telegram sends the browser back with the user's fields and a `hash`, the
  HMAC-SHA-256 of the fields (sorted, ``key=value`` lines) keyed with the SHA-256 of the bot's token; a login
  older than `TELEGRAM_MAX_AGE` is refused (a copied address is not a login).
- **Discord's OAuth2** (authorization code): the browser is sent to Discord with a random `state` kept in a
  short-lived cookie; Discord sends it back with a code, which is refused unless the state matches, then exchanged
  (with the client secret) for a token that reads the user's id (`identify` scope only).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

import aiohttp

TELEGRAM_MAX_AGE = timedelta(hours=1)
DISCORD_TIMEOUT = aiohttp.ClientTimeout(total=10)


class LoginRefused(Exception):
    """The platform's answer proves nothing: the message says why (for the log; the member sees one line)."""


def telegram_account(fields: Mapping[str, str], bot_token: str, now: datetime) -> str:
    """The Telegram user id the widget's fields prove, else `LoginRefused`."""
    given = fields.get("hash", "")
    checked = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()) if k != "hash")
    secret = hashlib.sha256(bot_token.encode("utf-8")).digest()
    expected = hmac.new(secret, checked.encode("utf-8"), hashlib.sha256).hexdigest()
    if not given or not hmac.compare_digest(expected, given.lower()):
        raise LoginRefused("the Telegram login's hash does not match the bot's token")
    try:
        signed_at = datetime.fromtimestamp(int(fields.get("auth_date", "")), tz=now.tzinfo)
    except (ValueError, OverflowError, OSError):
        raise LoginRefused("the Telegram login has no auth_date") from None
    if not timedelta(minutes=-5) <= now - signed_at <= TELEGRAM_MAX_AGE:
        raise LoginRefused("the Telegram login is too old (or from the future)")
    user = fields.get("id", "")
    if not (user.isascii() and user.isdigit()):
        raise LoginRefused("the Telegram login names no user id")
    return user


@dataclass(frozen=True, slots=True)
class DiscordOAuth:
    """Discord's OAuth2 for one club: its application, where Discord sends the browser back, and Discord's API."""

    client_id: str
    client_secret: str
    redirect_uri: str
    api: str = "https://discord.com/api"

    def authorize_url(self, state: str) -> str:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": self.client_id,
                "scope": "identify",
                "state": state,
                "redirect_uri": self.redirect_uri,
                "prompt": "none",
            }
        )
        return f"{self.api}/oauth2/authorize?{query}"

    async def account(self, code: str) -> str:
        """The Discord user id the authorization `code` proves, else `LoginRefused`."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": self.redirect_uri,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
        }
        try:
            async with aiohttp.ClientSession(timeout=DISCORD_TIMEOUT) as http:
                async with http.post(f"{self.api}/oauth2/token", data=form) as answer:
                    if answer.status != 200:
                        raise LoginRefused(f"Discord refused the code ({answer.status})")
                    token = (await answer.json()).get("access_token")
                if not isinstance(token, str) or not token:
                    raise LoginRefused("Discord gave no access token")
                headers = {"Authorization": f"Bearer {token}"}
                async with http.get(f"{self.api}/users/@me", headers=headers) as answer:
                    if answer.status != 200:
                        raise LoginRefused(f"Discord did not say who the user is ({answer.status})")
                    user = (await answer.json()).get("id")
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            raise LoginRefused(f"Discord could not be reached: {exc}") from None
        if not isinstance(user, str) or not (user.isascii() and user.isdigit()):
            raise LoginRefused("Discord named no user id")
        return user
