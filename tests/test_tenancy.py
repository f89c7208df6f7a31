"""Many clubs in one PostgreSQL database (issue 21, storage/tenancy.py): two clubs with the same nicknames and game
numbers, driven through the desk — calls, a Sudi, a verdict, a correction — never see each other's rows; a raw
statement through one club's connection can neither read, update, insert nor point at the other's rows; every
table of the schema is built so (a key, index and foreign key of each begins with the club, its row-level
security forced); rows a database held before 0020 belong to the club that migrates it; each club has its own
bot lock and write lock; `[club] id` is the configuration's, and the command line reads the club it names."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import asyncpg
import pytest
from test_corrections import fall_game, paper_of, say

from bot.app import App, build_app, take_gateway
from bot.cli import main as cli_main
from bot.commands import Commands
from bot.config import Config, ConfigError, from_dict
from bot.ports import ManualTimers
from club import NOW, Club, make_club
from rules.verdicts import Draft, Penalty
from storage import postgres
from storage.database import migrations, open_database, split_statements
from storage.errors import Conflict, DatabaseUnavailable
from storage.outbox import OutboxStore
from storage.pg_dialect import Catalog, translate
from storage.pg_gateway import GatewayLock
from storage.postgres import WRITE_LOCK, PostgresDatabase
from storage.tenancy import DEFAULT_CLUB, lock_key

A, B = "beograd", "novisad"


async def members(club: Club) -> None:
    for nick in ("ana", "marko", "petar", "jelena"):
        await club.member(nick)
    await club.member("sudija1", "referee")
    await club.member("sudija2", "referee")


async def two_clubs(tmp_path: Path, pg_url: str) -> tuple[Club, Club]:
    """Two clubs on one database, with the same members (by nickname) and the same game 100."""
    a = await make_club(tmp_path, database=pg_url, club_id=A)
    b = await make_club(tmp_path, database=pg_url, club_id=B)
    for club in (a, b):
        await members(club)
        await club.game(100)
    return a, b


async def count(club: Club, table: str) -> int:
    rows = list(await club.db.connection.execute_fetchall(f"SELECT count(*) FROM {table}"))
    return int(rows[0][0])


async def by_club(admin: asyncpg.Connection, table: str) -> dict[str, int]:
    """What the superuser (not bound by row-level security) sees: each club's rows of `table`."""
    rows = await admin.fetch(f"SELECT club, count(*) FROM {table} GROUP BY club")
    return {r[0]: r[1] for r in rows}


def admin_url(pg_url: str) -> str:
    return pg_url.replace("postgresql://sudija@", "postgresql://postgres@", 1)


async def test_two_clubs_with_the_same_nicknames_and_game_numbers_never_see_each_other(
    tmp_path: Path, pg_url: str
) -> None:
    a, b = await two_clubs(tmp_path, pg_url)
    try:
        a_ana, b_ana = await a.get("ana"), await b.get("ana")
        assert a_ana.id != b_ana.id  # one nickname, two members: each club's own
        # A call in one club: the other's game 100 has none, and its own caller may call the same number.
        assert (await a.desk.calls.call(a_ana, 100)).ok
        a_call = await a.db.calls.pending_for_game(100)
        assert a_call is not None
        assert await b.db.calls.pending_for_game(100) is None
        assert (await b.desk.calls.call(b_ana, 100)).ok
        b_call = await b.db.calls.pending_for_game(100)
        assert b_call is not None
        assert b_call.id != a_call.id
        # Sudi: the other club's referee cannot take the call, even by its id (a button's payload is no key).
        refused = await b.desk.trials.take(await b.get("sudija1"), a_call.id)
        assert not refused.ok
        assert (await a.desk.trials.take(await a.get("sudija1"), a_call.id)).ok
        trial = await a.db.trials.open_for_game(100)
        assert trial is not None
        assert await b.db.trials.open_for_game(100) is None
        assert await b.db.trials.get(trial.id) is None
        still = await b.db.calls.pending_for_game(100)
        assert still is not None
        assert still.id == b_call.id  # B's call waits for B's referees, untouched by A's Sudi
        # A verdict in club A: petar of A gets the plavac; petar of B gets nothing.
        a_referee = await a.get("sudija1")
        assert (await a.desk.draft(a_referee, Draft(Penalty("petar", plavac_days=2), "namerno napuštanje"))).ok
        assert (await a.desk.finish(a_referee)).ok
        recorded = await a.db.trials.get(trial.id)
        assert recorded is not None
        assert recorded.outcome == "verdict"
        assert await a.db.penalties.plavac((await a.get("petar")).id) is not None
        assert await b.db.penalties.plavac((await b.get("petar")).id) is None
        assert await b.db.penalties.for_game(100) == []
        assert len(await a.db.penalties.for_game(100)) == 1
        # A correction in club A: the same game number with a fall in both clubs; only A's paper changes.
        a_fall, b_fall = await fall_game(a), await fall_game(b)
        assert a_fall.game.number == b_fall.game.number
        before = await paper_of(b, b_fall.game)
        commands = Commands(a.desk)
        assert (await say(commands, a, a_fall.other, f"/bula {a_fall.hand}")).ok
        assert len(await a.db.paper_changes.for_game(a_fall.game.number)) == 1
        assert await b.db.paper_changes.for_game(b_fall.game.number) == []
        assert await paper_of(b, b_fall.game) == before
        # Nothing of one club in the other's listings, though the database holds both.
        a_events = {e.id for e in await a.db.events.listing()}
        b_events = {e.id for e in await b.db.events.listing()}
        assert a_events
        assert b_events
        assert not a_events & b_events
        admin = await asyncpg.connect(admin_url(pg_url))
        try:
            for table, mine in (("members", 6), ("games", 2), ("calls", 1), ("trials", 1), ("penalties", 1)):
                assert await count(a, table) == (await by_club(admin, table))[A]
                if table in ("members", "games"):
                    assert await count(a, table) == await count(b, table) == mine
            assert (await by_club(admin, "calls")) == {A: 1, B: 1}
            assert (await by_club(admin, "trials")) == {A: 1}
            assert (await by_club(admin, "paper_changes")) == {A: 1}
            assert await count(b, "trials") == await count(b, "paper_changes") == await count(b, "plavac") == 0
        finally:
            await admin.close()
    finally:
        await a.db.close()
        await b.db.close()


async def test_a_raw_statement_of_one_club_can_neither_read_nor_change_nor_write_the_others_rows(
    tmp_path: Path, pg_url: str
) -> None:
    a, b = await two_clubs(tmp_path, pg_url)
    conn = a.db.connection
    b_ana = await b.get("ana")
    try:
        assert list(await conn.execute_fetchall("SELECT count(*) FROM members WHERE club = ?", (B,))) == [(0,)]
        assert list(await conn.execute_fetchall("SELECT nick FROM members WHERE id = ?", (b_ana.id,))) == []
        cursor = await conn.execute("UPDATE members SET on_duty = 0 WHERE nick = 'ana'")
        assert cursor.rowcount == 1  # A's ana only
        assert (await b.get("ana")).on_duty
        assert (await conn.execute("UPDATE members SET nick = 'x' WHERE club = ?", (B,))).rowcount == 0
        assert (await conn.execute("DELETE FROM game_players WHERE game = 100")).rowcount == 3
        assert await count(b, "game_players") == 3
        # Writing a row of the other club, or moving one's own row there, is refused by the policy.
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match="row-level security"):
            await conn.execute("INSERT INTO members (club, nick, created_at) VALUES (?, 'uljez', 'x')", (B,))
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match="row-level security"):
            await conn.execute("UPDATE members SET club = ? WHERE nick = 'marko'", (B,))
        # Nor may a row of A point at a row of B: every foreign key is (club, …).
        with pytest.raises(Conflict):
            await conn.execute(
                "INSERT INTO roles (member, role, granted_at) VALUES (?, 'referee', 'x')",
                (b_ana.id,),
            )
        assert "referee" not in (await b.get("ana")).roles
        # A connection that names no club is refused every row (the policies and defaults read its setting).
        stranger = await asyncpg.connect(pg_url)
        try:
            with pytest.raises(asyncpg.exceptions.UndefinedObjectError, match=r"sudija\.club"):
                await stranger.fetch("SELECT count(*) FROM members")
            role = await stranger.fetchrow("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
            assert tuple(role) == (False, False)  # the tests' clubs connect as the tables' owner, an ordinary role
        finally:
            await stranger.close()
        assert await count(b, "members") == 6
    finally:
        await a.db.close()
        await b.db.close()


async def test_every_table_has_the_club_in_its_keys_indexes_and_foreign_keys_under_forced_row_security(
    pg_url: str,
) -> None:
    """Guards every later migration too: a new table or index without the club fails here."""
    conn = await asyncpg.connect(admin_url(pg_url))
    try:
        tables = [
            r[0]
            for r in await conn.fetch(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'"
            )
        ]
        assert len(tables) > 30
        wrong = []
        for table in tables:
            column = await conn.fetchrow(
                "SELECT is_nullable FROM information_schema.columns WHERE table_name = $1 AND column_name = 'club'",
                table,
            )
            if column is None or column[0] != "NO":
                wrong.append(f"{table}: no club NOT NULL")
            secured = await conn.fetchrow(
                "SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = $1::regclass", table
            )
            policies = await conn.fetch(
                "SELECT cmd, qual, with_check FROM pg_policies WHERE tablename = $1 AND schemaname = 'public'", table
            )
            if tuple(secured) != (True, True):
                wrong.append(f"{table}: row-level security not enabled and forced")
            if [tuple(p) for p in policies] != [
                (
                    "ALL",
                    "(club = current_setting('sudija.club'::text))",
                    "(club = current_setting('sudija.club'::text))",
                )
            ]:
                wrong.append(f"{table}: policies {[tuple(p) for p in policies]}")
        constraints = await conn.fetch(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE contype IN ('p', 'u', 'f') AND connamespace = 'public'::regnamespace"
            " AND conrelid <> 'schema_migrations'::regclass"
        )
        for table, name, definition in constraints:
            if "(club, " not in definition or ("REFERENCES" in definition and definition.count("(club, ") != 2):
                wrong.append(f"{table}.{name}: {definition}")
        indexes = await conn.fetch(
            "SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = 'public'::regnamespace"
            " AND c.relname <> 'schema_migrations'"
        )
        for name, definition in indexes:
            if "USING btree (club, " not in definition:
                wrong.append(f"{name}: {definition}")
        assert wrong == []
    finally:
        await conn.close()


def before_clubs(migration: tuple[int, str, str]) -> tuple[int, str, str]:
    """A migration as a database from before 0020 can take it: without an index or a foreign key that begins with
    the club."""
    version, name, sql = migration
    if version < 20:
        return migration
    kept = [s for s in split_statements(sql) if not (s.startswith("CREATE UNIQUE INDEX") and "(club, " in s)]
    return version, name, ";\n".join(_CLUB_KEY.sub("", s) for s in kept)


_CLUB_KEY = re.compile(r",\s*FOREIGN KEY \(club, [^)]*\) REFERENCES \w+ \(club, [^)]*\)")


async def test_the_rows_a_database_held_before_0020_belong_to_the_club_that_migrates_it(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A deployment's database from before clubs (migrated to 0019 only, in a schema of its own), used by its desk:
    # members with roles, a game, a call taken, a verdict with its plavac and penalty, the events of all that.
    old = await postgres.scratch_schema(pg_url, "before_clubs")
    # (with what today's desk reads on every path: 0025 nicknames and 0026 the club's key, made with their club,
    # 0029's column of the votes, whose index on the club cannot be made before 0020 gives the votes one, 0032
    # the trials' spaces, made with their club, 0033's paper version of the games, and 0034's reports and 0035's
    # suspensions, likewise, and 0037's hands appended to the games, and 0038's removals)
    monkeypatch.setattr(
        postgres,
        "migrations",
        lambda dialect: [
            before_clubs(m) for m in migrations(dialect) if m[0] < 20 or m[0] in (25, 26, 29, 32, 33, 34, 35, 37, 38)
        ],
    )
    try:
        before = await make_club(tmp_path, database=old, club_id="stari")
        await members(before)
        await before.game(100)
        assert (await before.desk.calls.call(await before.get("ana"), 100)).ok
        call = await before.db.calls.pending_for_game(100)
        assert call is not None
        referee = await before.get("sudija1")
        assert (await before.desk.trials.take(referee, call.id)).ok
        assert (await before.desk.draft(referee, Draft(Penalty("petar", plavac_days=2), "namerno"))).ok
        assert (await before.desk.finish(referee)).ok
        tables = ("members", "roles", "games", "game_players", "calls", "trials", "penalties", "plavac", "events")
        counts = {table: await count(before, table) for table in tables}
        await before.db.close()
        monkeypatch.undo()
        # The upgrade: the club of the deployment that migrates is "stari", and every old row is its.
        kept = await make_club(tmp_path, database=old, club_id="stari")
        other = await make_club(tmp_path, database=old, club_id=DEFAULT_CLUB)
        try:
            assert {table: await count(kept, table) for table in tables} == counts
            assert all(counts.values())
            assert {table: await count(other, table) for table in tables if table != "events"} == dict.fromkeys(
                (t for t in tables if t != "events"), 0
            )
            trial = await kept.db.trials.open_for_game(100)
            assert trial is None  # finished, and found by the club's desk as before
            assert len(await kept.db.penalties.for_game(100)) == 1
            await members(other)  # the other club's own ana, beside the old one
            assert (await other.get("ana")).id != (await kept.get("ana")).id
        finally:
            await kept.db.close()
            await other.db.close()
    finally:
        await postgres.drop_schema(pg_url, "before_clubs")


async def test_a_role_the_policies_do_not_bind_is_refused_where_another_club_has_rows(
    pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    superuser = admin_url(pg_url)
    alone = await open_database(superuser, club=A)  # only A's rows (none yet): it opens, with a warning
    await alone.members.link("test", "1", "ana", NOW)
    await alone.close()
    assert "not bound by row-level security" in caplog.text
    b = await open_database(pg_url, club=B)
    await b.members.link("test", "1", "ana", NOW)
    await b.close()
    with pytest.raises(DatabaseUnavailable, match=r"holds the rows of other clubs \(such as 'novisad'\)"):
        await open_database(superuser, club=A)


async def test_each_club_has_its_own_gateway_lock_and_write_lock(pg_url: str) -> None:
    async def bot(club: str) -> App:
        return await build_app(Config(club_id=club), database=pg_url, timers=ManualTimers(), sweep=False)

    first, second, again = await bot(A), await bot(B), await bot(A)
    try:
        held_a = await take_gateway(first)
        held_b = await asyncio.wait_for(take_gateway(second), 10)  # club B's events are not club A's
        assert held_a.held
        assert held_b.held
        told: list[str] = []
        standing_by = asyncio.Event()
        waiting = asyncio.ensure_future(  # a second process of club A
            take_gateway(again, waiting=lambda holder: (told.append(holder), standing_by.set()))
        )
        await asyncio.wait_for(standing_by.wait(), 10)
        assert told == [await GatewayLock(pg_url, lock_key(A)).holder()]
        assert not waiting.done()  # it waits for club A's holder, whoever holds club B's
        await held_a.release()
        assert (await asyncio.wait_for(waiting, 10)).held
        await held_b.release()
    finally:
        await first.close()
        await second.close()
        await again.close()
    db_b = await open_database(pg_url, club=B, busy_timeout_ms=100)
    assert isinstance(db_b, PostgresDatabase)
    assert db_b.club_key == lock_key(B) != lock_key(A)
    writer = await asyncpg.connect(pg_url)
    try:
        async with writer.transaction():  # club A's process mid-write: club B's writer does not wait for it
            await writer.execute("SELECT pg_advisory_xact_lock($1, $2)", WRITE_LOCK, lock_key(A))
            assert await db_b.members.link("test", "1", "ana", NOW) is not None
    finally:
        await writer.close()
        await db_b.close()


async def test_a_clubs_commits_wake_its_own_processes_only(pg_url: str) -> None:
    a_writer = await open_database(pg_url, club=A)
    b_writer = await open_database(pg_url, club=B)
    b_other = await open_database(pg_url, club=B)
    heard: list[str] = []
    woken = asyncio.Event()

    def b_woken() -> None:
        heard.append("b")
        woken.set()

    try:
        assert isinstance(b_other, PostgresDatabase)
        await b_other.listen(b_woken)
        assert await OutboxStore(a_writer).enqueue("game:1", "pause_table", {"game": 1}, NOW) is not None
        assert await OutboxStore(b_writer).enqueue("game:1", "pause_table", {"game": 1}, NOW) is not None
        await asyncio.wait_for(woken.wait(), 5)
        assert b_other._listener is not None
        await b_other._listener.fetch("SELECT 1")  # every notification committed before is delivered by now
        assert heard == ["b"]  # club B's commit woke it; club A's, committed first, did not
    finally:
        for db in (a_writer, b_writer, b_other):
            await db.close()


def test_the_command_line_reads_the_club_its_configuration_names(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async def one_game() -> None:
        a = await make_club(tmp_path, database=pg_url, club_id=A)
        await a.game(4242)
        await a.db.close()

    asyncio.run(one_game())
    for club, seen in ((A, True), (B, False)):
        config = tmp_path / f"{club}.toml"
        config.write_text(f'[club]\nid = "{club}"\ndatabase = "{pg_url}"\n', encoding="utf-8")
        assert cli_main(["--config", str(config), "games", "--json"]) == 0
        assert ('"number": 4242' in capsys.readouterr().out) is seen


def test_the_club_id_is_a_short_slug_and_defaults_so_a_lone_club_needs_none() -> None:
    assert Config().club_id == DEFAULT_CLUB == "klub"
    assert from_dict({"club": {"id": "novi-sad_2"}}).club_id == "novi-sad_2"
    for bad in ("", "Beograd", "beo grad", "x" * 33, "-a", 7, "beograd'; --"):
        with pytest.raises(ConfigError, match=r"club\.id: a club id is a short slug"):
            from_dict({"club": {"id": bad}}, "c.toml")
    with pytest.raises(ConfigError, match=r"club\.club_id is not a setting"):
        from_dict({"club": {"club_id": "a"}}, "c.toml")


def test_a_conflict_target_the_store_writes_is_within_its_club() -> None:
    catalog = Catalog({"games": ("club", "number"), "calls": ("club", "id"), "old": ("number",)}, {"calls": "id"})
    assert translate("INSERT INTO games (number) VALUES (?) ON CONFLICT (number) DO NOTHING", catalog).text == (
        "INSERT INTO games (number) VALUES ($1) ON CONFLICT (club, number) DO NOTHING"
    )
    assert translate("INSERT INTO games (number) VALUES (?) ON CONFLICT (club, number) DO NOTHING", catalog).text == (
        "INSERT INTO games (number) VALUES ($1) ON CONFLICT (club, number) DO NOTHING"
    )
    assert translate("INSERT OR REPLACE INTO games (number, a) VALUES (?, ?)", catalog).text == (
        "INSERT INTO games (number, a) VALUES ($1, $2) ON CONFLICT (club, number) DO UPDATE SET a = EXCLUDED.a"
    )
    assert translate("INSERT INTO old (number) VALUES (?) ON CONFLICT (number) DO NOTHING", catalog).text == (
        "INSERT INTO old (number) VALUES ($1) ON CONFLICT (number) DO NOTHING"
    )
