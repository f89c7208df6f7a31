"""The desk's pictures as Discord attachments: one file each, shown in an embed titled with the picture's title
(``attachment://name``), at most ten to a message as Discord allows."""

from __future__ import annotations

import io
from collections.abc import Sequence

import discord

from bot.ports import Picture

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
