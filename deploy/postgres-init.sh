#!/bin/sh
# Run once by the official postgres image when its data volume is new (/docker-entrypoint-initdb.d/): creates
# the bot's own ORDINARY role (not a superuser, no BYPASSRLS: row-level security binds it, docs/deploy.md "Many
# clubs on one database") and gives it the database. POSTGRES_USER stays the administrator's, never the bot's.
# The bot's password is read from the file SUDIJA_DB_PASSWORD_FILE names (a compose secret).
set -eu
password=$(cat "${SUDIJA_DB_PASSWORD_FILE:?the bot role's password file}")
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    --set=role="${SUDIJA_DB_USER:-sudija}" --set=password="$password" <<'SQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
SELECT format('ALTER DATABASE %I OWNER TO %I', current_database(), :'role') \gexec
SQL
