"""The desk's pictures and documents on Telegram (`send_attachments`): each picture a photo (sendPhoto) with its
title as the caption, after the reply's text; each document a file (sendDocument). A picture Telegram would
refuse as a photo (width + height above 10,000 pixels, or one side more than 20 times the other: a very long
game's paper) goes as a PNG document instead. What cannot be sent is logged and skipped: the text before it
already said everything."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from telegram import Bot, InputFile
from telegram.error import TelegramError

from bot.ports import Document, Picture, Reply

log = logging.getLogger(__name__)

CAPTION_LIMIT = 1024  # characters of a photo's caption
PHOTO_MAX_BYTES = 10 * 1024 * 1024
PHOTO_MAX_SIDES = 10_000  # width + height
PHOTO_MAX_RATIO = 20


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (0, 0 when it is not a PNG)."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n") or len(png) < 24:
        return 0, 0
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def fits_as_photo(png: bytes) -> bool:
    width, height = png_size(png)
    if not width or not height or len(png) > PHOTO_MAX_BYTES:
        return False
    return width + height <= PHOTO_MAX_SIDES and max(width, height) <= PHOTO_MAX_RATIO * min(width, height)


async def send_pictures(bot: Bot, chat_id: int, pictures: Sequence[Picture]) -> int:
    """Send `pictures` to `chat_id`; how many were sent."""
    sent = 0
    for picture in pictures:
        caption = picture.title[:CAPTION_LIMIT]
        upload = InputFile(picture.png, filename=picture.name)
        try:
            if fits_as_photo(picture.png):
                await bot.send_photo(chat_id, upload, caption=caption)
            else:
                await bot.send_document(chat_id, upload, caption=caption)
            sent += 1
        except TelegramError as error:
            log.warning("cannot send picture %s to telegram chat %s: %s", picture.name, chat_id, error.message)
    return sent


async def send_documents(bot: Bot, chat_id: int, documents: Sequence[Document]) -> int:
    """Send `documents` (sendDocument, the title as the caption); how many were sent."""
    sent = 0
    for document in documents:
        try:
            await bot.send_document(chat_id, InputFile(document.data, filename=document.name),
                                    caption=document.title[:CAPTION_LIMIT])
            sent += 1
        except TelegramError as error:
            log.warning("cannot send %s to telegram chat %s: %s", document.name, chat_id, error.message)
    return sent


async def send_attachments(bot: Bot, chat_id: int, reply: Reply) -> None:
    """A reply's pictures, then its documents, after its text."""
    await send_pictures(bot, chat_id, reply.pictures)
    await send_documents(bot, chat_id, reply.documents)
