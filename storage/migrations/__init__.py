"""SQL migrations, applied in order by storage.database."""
