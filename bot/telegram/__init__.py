"""The Telegram adapter: the desk in a Telegram group over the Bot API (python-telegram-bot 22).

`TelegramAdapter` (life cycle, `adapter.py`), `TelegramChat` (the outbound `ChatPort`, `port.py`),
`TelegramHandlers` (updates → desk use cases, `handlers.py`), `format.py` (keyboards, limits, mentions),
`transport.py` (the HTTP client under python-telegram-bot: aiohttp, cheap enough for a burst of presses).
Setup for a club admin: docs/telegram.md.
"""

from bot.telegram.adapter import TelegramAdapter, run_telegram
from bot.telegram.handlers import TelegramHandlers
from bot.telegram.port import TelegramChat

__all__ = ["TelegramAdapter", "TelegramChat", "TelegramHandlers", "run_telegram"]
