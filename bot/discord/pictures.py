"""The desk's pictures and documents as Discord attachments: a picture is a file shown in an embed titled with the
picture's title (``attachment://name``), a document a plain file; at most ten to a message as Discord allows."""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

from bot.ports import Document, Picture, Reply

MAX_FILES = 10  # files (and embeds) in one message


def picture_attachments(pictures: Sequence[Picture]) -> tuple[list[discord.File], list[discord.Embed]]:
    files: list[discord.File] = []
    embeds: list[discord.Embed] = []
    for picture in pictures[:MAX_FILES]:
        files.append(discord.File(io.BytesIO(picture.png), filename=picture.name))
        embed = discord.Embed(title=picture.title[:256])
        embed.set_image(url=f"attachment://{picture.name}")
        embeds.append(embed)
    return files, embeds


def reply_attachments(reply: Reply) -> tuple[list[discord.File], list[discord.Embed]]:
    """The files (pictures first, then documents) and the pictures' embeds of a reply, at most `MAX_FILES`."""
    files, embeds = picture_attachments(reply.pictures)
    files += document_files(reply.documents[: MAX_FILES - len(files)])
    return files, embeds


def document_files(documents: Sequence[Document]) -> list[discord.File]:
    return [discord.File(io.BytesIO(d.data), filename=d.name, description=d.title[:1024]) for d in documents]
