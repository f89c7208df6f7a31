"""The desk's pictures and documents on Telegram (`send_attachments`): each picture a photo (sendPhoto) with its
title as the caption, after the reply's text; each document a file (sendDocument). A picture Telegram would
refuse as a photo (width + height above 10,000 pixels, or one side more than 20 times the other: a very long
game's paper) goes as a PNG document instead. What cannot be sent is logged and skipped: the text before it
already said everything."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from telegram import Bot, InputFile, InputMediaPhoto
from telegram.error import TelegramError

from bot.ports import Document, Picture, Reply

log = logging.getLogger(__name__)

CAPTION_LIMIT = 1024  # characters of a photo's caption
PHOTO_MAX_BYTES = 10 * 1024 * 1024
PHOTO_MAX_SIDES = 10_000  # width + height
PHOTO_MAX_RATIO = 20
ALBUM_LIMIT = 10  # photos in one media group


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
    """Send `pictures` to `chat_id` in their order: photos that come together as albums of up to ten
    (sendMediaGroup; a single one by sendPhoto), a picture too long for a photo as a document; how many were
    sent."""
    sent = 0
    album: list[Picture] = []
    for picture in pictures:
        if fits_as_photo(picture.png):
            album.append(picture)
            if len(album) == ALBUM_LIMIT:
                sent += await _send_album(bot, chat_id, album)
                album = []
            continue
        if album:
            sent += await _send_album(bot, chat_id, album)
            album = []
        try:
            await bot.send_document(
                chat_id, InputFile(picture.png, filename=picture.name), caption=picture.title[:CAPTION_LIMIT]
            )
            sent += 1
        except TelegramError as error:
            log.warning("cannot send picture %s to telegram chat %s: %s", picture.name, chat_id, error.message)
    if album:
        sent += await _send_album(bot, chat_id, album)
    return sent


async def _send_album(bot: Bot, chat_id: int, album: Sequence[Picture]) -> int:
    try:
        if len(album) == 1:
            await bot.send_photo(
                chat_id, InputFile(album[0].png, filename=album[0].name), caption=album[0].title[:CAPTION_LIMIT]
            )
        else:
            await bot.send_media_group(
                chat_id, [InputMediaPhoto(p.png, filename=p.name, caption=p.title[:CAPTION_LIMIT]) for p in album]
            )
    except TelegramError as error:
        log.warning("cannot send %d pictures to telegram chat %s: %s", len(album), chat_id, error.message)
        return 0
    return len(album)


async def send_documents(bot: Bot, chat_id: int, documents: Sequence[Document]) -> int:
    """Send `documents` (sendDocument, the title as the caption); how many were sent."""
    sent = 0
    for document in documents:
        try:
            await bot.send_document(
                chat_id, InputFile(document.data, filename=document.name), caption=document.title[:CAPTION_LIMIT]
            )
            sent += 1
        except TelegramError as error:
            log.warning("cannot send %s to telegram chat %s: %s", document.name, chat_id, error.message)
    return sent


async def send_attachments(bot: Bot, chat_id: int, reply: Reply) -> None:
    """A reply's pictures, then its documents, after its text."""
    await send_pictures(bot, chat_id, reply.pictures)
    await send_documents(bot, chat_id, reply.documents)
