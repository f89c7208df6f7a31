"""In-process fakes of external services (Discord, Telegram) for the end-to-end tests; loopback only."""
