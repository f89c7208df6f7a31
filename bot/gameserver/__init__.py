"""The game-server link, protocol v1.1 (docs/game-server.md): the club's game server posts signed events to the bot
(`inbound`, applied by `feed`) and the bot sends it commands through a durable outbox (`outbox`). `protocol`
holds the wire format, `korekcija` the players' undo of a wrong click, `reference` a game server the project
ships (tests, the console club, authors of game servers) and `check` the conformance check of a real one.
"""
