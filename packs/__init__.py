"""The rule packs (`packs/<name>.toml`, read by `bot.config.read_pack`): a package only so that an installed bot
(`pip install .`, the image) carries them beside `bot/`."""
