"""The Discord adapter: the desk on a Discord server through discord.py 2.x.

`attach_discord(app)` builds the client (`SudijaBot`) and attaches its `DiscordChat` port to the desk;
`run_discord(app, bot)` logs in with the token named in `[discord] token_env` and runs until closed;
`start_discord(app)` does both and returns once the bot is ready (start the desk after it).
`client` holds the events and interactions, `commands` the slash commands, `components` the restart-proof
buttons and the draft modals, `port` the outbound `ChatPort`. See docs/discord.md for the server's setup.
"""

from bot.discord.client import SudijaBot, attach_discord, intents, run_discord, start_discord
from bot.discord.port import DiscordChat

__all__ = ["DiscordChat", "SudijaBot", "attach_discord", "intents", "run_discord", "start_discord"]
