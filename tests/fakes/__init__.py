"""In-process fakes of external services (Discord, ...) used by the end-to-end tests; no network beyond 127.0.0.1."""
