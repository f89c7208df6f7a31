"""Persistence in SQLite through aiosqlite: migrations, repositories and the event history. SQL lives here."""
