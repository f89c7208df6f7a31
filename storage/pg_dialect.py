"""SQLite's SQL as PostgreSQL reads it: the stores write each statement once, and this translates it (pure, cached).

- ``?`` placeholders become ``$1, $2, …`` (never inside a quoted string or name);
- ``INSERT OR IGNORE`` becomes ``… ON CONFLICT DO NOTHING``; ``INSERT OR REPLACE INTO t (cols)`` becomes
  ``… ON CONFLICT (t's primary key) DO UPDATE SET`` every other listed column (all the stores mean by REPLACE);
- ``group_concat(x[, sep])`` becomes ``string_agg(x, sep)`` (``','`` by default), ``char(n)`` ``chr(n)``,
  ``json_extract(col, '$.key')`` ``(col::jsonb ->> 'key')`` — JSON is stored as text, and that reads a value
  as text, which is all the stores compare it with; ``json_each(x)`` (a JSON array of keys: a batch's ids, one
  parameter whatever their number) ``json_array_elements_text(x)``, each element a row whose ``value`` is text;
- an ``INSERT`` into a table with an integer primary key gets ``RETURNING`` that key, so the cursor's
  `lastrowid` is the new row's id as in SQLite (the rows it returns are not shown to the caller);
- on a table whose keys begin with the club (migration 0020, storage/tenancy.py), an ``ON CONFLICT (a, b)``
  the store wrote is ``ON CONFLICT (club, a, b)``: the store names the row's key within its club, and PostgreSQL's
  key is the club's too. The club column itself is no rowid: ``(club, id)`` has the rowid ``id``.

What does not translate is written so both read it alike: ``CASE`` instead of SQLite's two-argument
``max(a, b)`` (PostgreSQL's ``GREATEST`` ignores a NULL), a JSON number read as text and converted in Python,
no ``LIKE`` on a ``COLLATE NOCASE`` column (PostgreSQL's case-insensitive collation refuses it). `PRAGMA` and
``EXPLAIN QUERY PLAN`` are SQLite's own and stay on SQLite's code paths.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Statement:
    text: str
    rows: bool  # it returns rows (fetched rather than executed)
    rowid: bool  # its rows are the RETURNING added for lastrowid, not the caller's


@dataclass(slots=True)
class Catalog:
    """What the translation must know of the schema, read from PostgreSQL's catalogue after the migrations."""

    keys: Mapping[str, tuple[str, ...]]  # table → its primary key's columns
    rowids: Mapping[str, str]  # table → its one integer primary-key column (what SQLite calls the rowid)
    _cache: dict[str, Statement] = field(default_factory=dict)

    def translate(self, sql: str) -> Statement:
        done = self._cache.get(sql)
        if done is None:
            done = translate(sql, self)
            if len(self._cache) < 4096:  # the stores' statements are a few hundred texts
                self._cache[sql] = done
        return done


_INSERT = re.compile(r"^\s*INSERT\s+(?:OR\s+(IGNORE|REPLACE)\s+)?INTO\s+(\w+)\s*(\(([^)]*)\))?", re.IGNORECASE)
_OR = re.compile(r"^\s*INSERT\s+OR\s+\w+\s+INTO", re.IGNORECASE)
_RETURNING = re.compile(r"\bRETURNING\b", re.IGNORECASE)
_ROWS = re.compile(r"^\s*(SELECT|WITH|VALUES|SHOW)\b", re.IGNORECASE)
_JSON_EXTRACT = re.compile(r"\bjson_extract\(\s*([\w.]+)\s*,\s*'\$\.(\w+)'\s*\)", re.IGNORECASE)
_JSON_EACH = re.compile(r"\bjson_each\(", re.IGNORECASE)
_CHAR = re.compile(r"\bchar\((\d+)\)", re.IGNORECASE)
_CONFLICT_TARGET = re.compile(r"\bON\s+CONFLICT\s*\((?!\s*club\s*[,)])", re.IGNORECASE)
CLUB = "club"  # the column every table of a database of many clubs begins its keys with (0020)


def translate(sql: str, catalog: Catalog) -> Statement:
    text = _placeholders(sql)
    text = _JSON_EXTRACT.sub(lambda m: f"({m.group(1)}::jsonb ->> '{m.group(2)}')", text)
    text = _CHAR.sub(r"chr(\1)", text)
    text = _rewrite_calls(text, "group_concat", _string_agg)
    text = _JSON_EACH.sub("json_array_elements_text(", text)
    insert = _INSERT.match(text)
    rowid = False
    if insert is not None:
        how, table = (insert.group(1) or "").upper(), insert.group(2).lower()
        columns = [c.strip() for c in (insert.group(4) or "").split(",") if c.strip()]
        if catalog.keys.get(table, ("",))[0] == CLUB:  # a target the store wrote, within the club
            text = _CONFLICT_TARGET.sub(lambda m: m.group(0) + f"{CLUB}, ", text)
        if how:
            text = _OR.sub("INSERT INTO", text, count=1)
            text = _before_returning(text, _conflict_clause(how, table, columns, catalog))
        column = catalog.rowids.get(table)
        if column is not None and not _RETURNING.search(text):
            text = text.rstrip().rstrip(";") + f" RETURNING {column}"
            rowid = True
    rows = bool(_ROWS.match(text)) or bool(_RETURNING.search(text))
    return Statement(text, rows, rowid)


def _conflict_clause(how: str, table: str, columns: list[str], catalog: Catalog) -> str:
    if how == "IGNORE":
        return "ON CONFLICT DO NOTHING"
    key = catalog.keys.get(table)
    if not key or not columns:
        raise ValueError(f"INSERT OR REPLACE INTO {table} needs its column list and a primary key")
    others = [c for c in columns if c.lower() not in {k.lower() for k in key}]
    if not others:
        return f"ON CONFLICT ({', '.join(key)}) DO NOTHING"
    return f"ON CONFLICT ({', '.join(key)}) DO UPDATE SET " + ", ".join(f"{c} = EXCLUDED.{c}" for c in others)


def _before_returning(text: str, clause: str) -> str:
    found = _RETURNING.search(text)
    if found is None:
        return text.rstrip().rstrip(";") + " " + clause
    return text[: found.start()].rstrip() + " " + clause + " " + text[found.start() :]


def _placeholders(sql: str) -> str:
    """``?`` → ``$n``, left alone inside '…' strings and "…" names."""
    out: list[str] = []
    quote = ""
    n = 0
    for ch in sql:
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            n += 1
            out.append(f"${n}")
            continue
        out.append(ch)
    return "".join(out)


def _string_agg(args: list[str]) -> str:
    value = args[0]
    separator = args[1] if len(args) > 1 else "','"
    return f"string_agg({value}, {separator})"


def _rewrite_calls(text: str, name: str, rewrite: Callable[[list[str]], str]) -> str:
    """Each call `name(a, b, …)` (its arguments split at the top level) replaced by `rewrite([a, b, …])`."""
    pattern = re.compile(rf"\b{name}\(", re.IGNORECASE)
    while (found := pattern.search(text)) is not None:
        depth, start, args, i = 1, found.end(), [], found.end()
        piece = start
        quote = ""
        while depth:
            ch = text[i]
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == "," and depth == 1:
                args.append(text[piece:i].strip())
                piece = i + 1
            i += 1
        args.append(text[piece : i - 1].strip())
        text = text[: found.start()] + rewrite(args) + text[i:]
    return text
