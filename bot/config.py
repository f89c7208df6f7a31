"""The club's configuration: `config.toml` (see `config.example.toml` for every setting), with defaults.

Only this module reads the file; the rest of the program receives a `Config`.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import MISSING, dataclass, field, fields
from fractions import Fraction
from pathlib import Path
from typing import Any

from bot.arbitar_pool import DEFAULT_MEMORY_MB, check_budget, default_workers
from bot.gameserver.protocol import KEY_ID, WINDOW_SECONDS
from bot.i18n import LANGUAGES
from bot.i18n.clock import DEFAULT_TIMEZONE, known_zone
from rules.appeals import AppealConfigError, AppealRules, parse_appeal_rules
from rules.catalogue import CatalogueEntry, CatalogueError, Escalation, parse_catalogue, parse_escalation
from rules.limits import (
    CALL_MINUTES,
    CLAIM_DAYS,
    MAX_LEAGUE_POINTS,
    MAX_PLAVAC_DAYS,
    SETTLEMENT_DELAY,
    SETTLEMENT_PLAYED_SHARE,
    VOTE_DAYS,
    VOTE_MAJORITY,
)
from rules.members import OWNER, Member, Office, Role, office_of
from rules.nicknames import DEFAULT_SCRIPTS, KNOWN_SCRIPTS, NickRefused, check_nick, check_scripts, identity_key
from rules.penalty_model import PenaltyModelError, PenaltyRule, parse_rules
from rules.votes import parse_majority
from storage.tenancy import DEFAULT_CLUB, BadClubId, check_club_id

DEFAULT_PATH = Path("config.toml")
LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")


class ConfigError(ValueError):
    """The configuration file is unreadable or holds a wrong value; the message says which and how to fix it."""


@dataclass(frozen=True)
class DiscordConfig:
    token_env: str = "SUDIJA_DISCORD_TOKEN"
    guild_id: int = 0
    referees_channel_id: int = 0
    trials_channel_id: int = 0
    roles: dict[Role, int] = field(default_factory=dict)  # a function -> the Discord role id that holds it
    direct_messages: bool = False
    councilors_channel_id: int = 0  # where councilor calls go; 0: the referees' channel
    # A mapped role added or removed by hand on Discord grants or takes nothing (the acts are the truth) and is
    # reported to the councilors: "undo" puts it back as the acts say, "leave" leaves it as it is.
    role_changes: str = "undo"

    @property
    def token(self) -> str | None:
        return os.environ.get(self.token_env) or None


@dataclass(frozen=True)
class TelegramConfig:
    token_env: str = "SUDIJA_TELEGRAM_TOKEN"
    club_group_id: int = 0  # the club's group: /sudija and the members whose leaving ends a trial
    referees_group_id: int = 0  # the referees' group: every call with its Sudi button
    councilors_group_id: int = 0  # councilor calls' group; 0 = the referees' group
    # A group that is a forum (topics on): the topic (its message_thread_id) the bot posts in; 0 = General.
    club_topic_id: int = 0  # the club group's: the deep links to a trial for a member who never started the bot
    referees_topic_id: int = 0  # the referees' group's: every call
    councilors_topic_id: int = 0  # the councilor calls' group's; 0 = General (or the referees' topic when shared)
    direct_messages: bool = True  # also ping each eligible referee privately (those who started the bot)
    # The start's roll call of the club group asks Telegram about this many linked accounts a second at most
    # (getChatMember, paced apart from the members' messages: bot/telegram/limiter.py).
    roll_call_per_second: float = 5.0
    base_url: str | None = None  # only for tests against a fake Bot API

    @property
    def token(self) -> str | None:
        return os.environ.get(self.token_env) or None


@dataclass(frozen=True)
class PenaltyConfig:
    """Out-of-game verdicts and the league (`[penalties]`): limits, the settlement rule, names and the napustio
    charge. Another club's catalogue is held by changing these."""

    plavac_max_days: int = MAX_PLAVAC_DAYS
    league_max_points: int = MAX_LEAGUE_POINTS
    settlement_delay_minutes: int = int(SETTLEMENT_DELAY.total_seconds()) // 60
    settlement_played_share: str = str(SETTLEMENT_PLAYED_SHARE)  # of all bule (3 × size) played before a settlement
    abandon_league_points: int = -100  # league points of an interrupted rated game for whoever is counted napustio
    # The club's own names of the penalty and the league; None: the catalogue's (`term.plavac`, `term.league`) in the
    # reader's language and script.
    plavac_name: str | None = None
    league_name: str | None = None
    catalogue: tuple[CatalogueEntry, ...] = ()  # the club's named penalties (`[[penalties.catalogue]]`)
    escalation: Escalation = field(default_factory=Escalation)  # repeat offences cost more
    rules: tuple[PenaltyRule, ...] = ()  # the general model (`[[penalties.rules]]`, rules.penalty_model)


@dataclass(frozen=True)
class GovernanceConfig:
    """The councilors' votes (`[governance]`): how long a vote runs and the share of all councilors it needs."""

    vote_days: int = VOTE_DAYS
    majority: str = str(VOTE_MAJORITY)  # carried by MORE than this share of all councilors (1/2: a strict majority)


@dataclass(frozen=True)
class LinksConfig:
    """Linking accounts (`[links]`): how many link requests reach the approvers, and how many one-time codes reach
    a game client, in an hour — per account and per nickname alike (bot.desk.links)."""

    requests_per_hour: int = 3
    codes_per_hour: int = 3


PACKS_DIR = Path(__file__).resolve().parent.parent / "packs"


def read_pack(name: str, source: str) -> dict[str, Any]:
    """A rule pack: `packs/<name>.toml`, the settings of one club's rules (see packs/README.md)."""
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise ConfigError(f'{source}: club.pack must be a pack\'s name like "prvi_klub", not {name!r}')
    file = PACKS_DIR / f"{name}.toml"
    if not file.exists():
        known = ", ".join(sorted(p.stem for p in PACKS_DIR.glob("*.toml"))) or "—"
        raise ConfigError(f"{source}: club.pack {name!r}: there is no such pack (known: {known})")
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the pack {file}: {exc}") from None


def with_pack(data: dict[str, Any], source: str) -> dict[str, Any]:
    """The file's settings over its pack's: each section of the pack, with what the file sets replacing it."""
    name = data.get("club", {}).get("pack")
    if name is None:
        return data
    merged: dict[str, Any] = {k: dict(v) if isinstance(v, dict) else v for k, v in read_pack(str(name), source).items()}
    for section, values in data.items():
        if isinstance(values, dict) and isinstance(merged.get(section), dict):
            inner = dict(merged[section])
            for key, value in values.items():
                if isinstance(value, dict) and isinstance(inner.get(key), dict):
                    inner[key] = {**inner[key], **value}
                else:
                    inner[key] = value
            merged[section] = inner
        else:
            merged[section] = values
    return merged


@dataclass(frozen=True)
class GameServerConfig:
    """The game-server link (`[gameserver]`, docs/game-server.md); off while `url` is empty."""

    url: str = ""  # the game server's base URL; commands go to {url}/v1/commands
    host: str = "127.0.0.1"  # where the bot listens for the game server's events (POST /v1/events)
    port: int = 8710
    secret_env: str = "SUDIJA_GAMESERVER_SECRET"  # the shared secret is read from this environment variable
    key_id: str = ""  # that secret's id, named in the signatures (v1.1); empty: v1 signatures without an id
    previous_secret_env: str = ""  # during a rotation: the old secret, still accepted on the game server's events
    previous_key_id: str = ""
    events_secret_env: str = ""  # the events direction's own secret (game server → bot); empty: secret_env's
    events_key_id: str = ""
    timestamp_window_seconds: int = WINDOW_SECONDS
    clock_tolerance_seconds: int = WINDOW_SECONDS  # an event's times may lie this far ahead of the bot's clock
    query_timeout_seconds: float = 5.0  # how long the bot waits for the hand in progress (a referee waits)
    retry_initial_seconds: float = 1.0
    retry_max_seconds: float = 300.0

    @property
    def enabled(self) -> bool:
        return bool(self.url)

    @property
    def secret(self) -> str | None:
        return os.environ.get(self.secret_env) or None

    @staticmethod
    def read_secret(env: str) -> str | None:
        return os.environ.get(env) or None


@dataclass(frozen=True)
class OutboxConfig:
    """How long an outbox row that may heal is tried before it is dead (`[outbox]`, bot/outbox_engine.py): at most
    `max_attempts` tries, or `max_age_minutes` after its first failure, whichever comes first; both outboxes, the
    chat effects and the commands to the game server. `stop_grace_seconds`: how long a stopping bot lets the rows
    of both outboxes on their way (and Discord's members' acts under way) end and be recorded before its platforms
    close (`OutboxEngine.wind_down`); 0 cuts them at once (sent again after the restart)."""

    max_attempts: int = 20  # with the backoff (1 s doubling to 5 min), about 45 minutes of tries
    max_age_minutes: float = 60.0
    stop_grace_seconds: float = 5.0  # well inside the 10 s `docker stop` waits before it kills


@dataclass(frozen=True)
class ImportConfig:
    """What the running bot imports by itself (`[import]`, bot/inbox.py): the game logs that land in the folder
    `watch` (none while it is empty), and how often it looks there and at its inbox (the work `sudija import` and
    `sudija outbox --retry/--skip` hand it on SQLite)."""

    watch: str = ""
    poll_seconds: float = 2.0


@dataclass(frozen=True)
class ArbitarConfig:
    """Where the Arbitar's analyses run (`[arbitar]`, bot/arbitar_pool.py): `workers` processes of the bot (0 runs
    them in a thread of the bot's process), sharing `memory_mb` megabytes in all: each worker's tables are sized
    from its share."""

    workers: int = field(default_factory=default_workers)
    memory_mb: int = DEFAULT_MEMORY_MB


@dataclass(frozen=True)
class LogConfig:
    """The bot's journal (`[log]`, bot/logs.py): how much, and as readable text or one JSON object per line."""

    level: str = "info"  # debug, info, warning, error
    format: str = "text"  # text, json


@dataclass(frozen=True)
class HttpConfig:
    """`sudija run`'s own HTTP endpoint (`[http]`, bot/http.py): /healthz and /metrics. Off while `port` is 0;
    on the machine only (127.0.0.1) unless `host` says otherwise."""

    host: str = "127.0.0.1"
    port: int = 0

    @property
    def enabled(self) -> bool:
        return self.port != 0


@dataclass(frozen=True)
class WebConfig:
    """The club's web pages (`[web]`, bot/web; docs/deploy.md puts nginx or Caddy with HTTPS in front): off while
    `port` is 0. Members sign in with the one-time link `/web` sends them privately, or — where configured — with
    the Telegram Login Widget or Discord's OAuth2."""

    host: str = "127.0.0.1"
    port: int = 0
    public_url: str = ""  # the address members open (https://klub.example); empty: http://host:port
    session_days: int = 30  # how long a sign-in lasts (sign-out, a link or an office ending ends it sooner)
    telegram_login: bool = False  # offer the Telegram Login Widget (checked with [telegram]'s bot token)
    telegram_bot: str = ""  # the bot's username, which the widget names
    discord_client_id: str = ""  # Discord's OAuth2: the application's client id; empty: off
    discord_secret_env: str = "SUDIJA_DISCORD_CLIENT_SECRET"  # its client secret is read from this variable
    discord_api: str = "https://discord.com/api"  # only for tests against a fake Discord
    forwarded: bool = False  # behind a reverse proxy: the client's address is its X-Forwarded-For (rate limits)

    @property
    def enabled(self) -> bool:
        return self.port != 0

    @property
    def base_url(self) -> str:
        """Where the pages are reached, without a trailing slash."""
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def secure(self) -> bool:
        """Served over HTTPS (behind the proxy): the session cookie is `Secure` and HSTS is sent."""
        return self.base_url.startswith("https://")

    @property
    def discord_secret(self) -> str | None:
        return os.environ.get(self.discord_secret_env) or None


@dataclass(frozen=True)
class Config:
    database: str = "sudija.db"
    club_id: str = DEFAULT_CLUB  # `[club] id`: which club of a database shared by many (storage/tenancy.py)
    language: str = "sr"
    timezone: str = DEFAULT_TIMEZONE  # the club's clock: every time is shown in it (an IANA zone name)
    owner: str | None = None  # the owner's club nickname
    owner_accounts: tuple[str, ...] = ()  # the owner's chat accounts, "discord:<user id>", "telegram:<user id>"
    scripts: tuple[str, ...] = DEFAULT_SCRIPTS  # the scripts a nickname's letters may be of (rules.nicknames)
    call_minutes: int = CALL_MINUTES
    claim_days: int = CLAIM_DAYS
    referee_offline_grace_seconds: int = 120
    # A trial whose space a platform refuses to open (a permission the bot lacks there): "relay" — it goes on
    # through the bot's private messages there until the space can be opened; "interrupt" — it ends as interrupted.
    space_refused: str = "relay"
    referee_names_visible_to: tuple[Office, ...] = (Role.MODERATOR, Role.REFEREE, Role.COUNCILOR, OWNER)
    direct_messages: bool = False
    settlement_finished_min_bule: int = 60
    league_grace_days: int = 3
    discord: DiscordConfig = field(default_factory=DiscordConfig)
    telegram: TelegramConfig = field(default_factory=TelegramConfig)
    penalties: PenaltyConfig = field(default_factory=PenaltyConfig)
    gameserver: GameServerConfig = field(default_factory=GameServerConfig)
    outbox: OutboxConfig = field(default_factory=OutboxConfig)
    imports: ImportConfig = field(default_factory=ImportConfig, metadata={"section": "import"})
    pack: str | None = None  # a rule pack (packs/<name>.toml) whose settings this file's settings override
    governance: GovernanceConfig = field(default_factory=GovernanceConfig)
    links: LinksConfig = field(default_factory=LinksConfig)
    appeals: AppealRules = field(default_factory=AppealRules)
    arbitar: ArbitarConfig = field(default_factory=ArbitarConfig)
    log: LogConfig = field(default_factory=LogConfig)
    http: HttpConfig = field(default_factory=HttpConfig)
    web: WebConfig = field(default_factory=WebConfig)

    def is_owner(self, member: Member) -> bool:
        """The owner's powers need both: the configured nickname and one of the configured accounts."""
        return (
            self.owner is not None
            and identity_key(member.nick) == identity_key(self.owner)
            and not member.accounts.isdisjoint(self.owner_accounts)
        )

    def offices(self, member: Member) -> frozenset[Office]:
        """What the member is to the rules of who sees and does what: his functions, and the owner's office."""
        return member.roles | {OWNER} if self.is_owner(member) else frozenset(member.roles)

    @property
    def platforms(self) -> list[str]:
        """The chat platforms this club is served on: those whose token is set in the environment."""
        return [name for name, s in (("discord", self.discord), ("telegram", self.telegram)) if s.token is not None]


def load(path: str | Path | None = None) -> Config:
    """Read the configuration; a missing default file means all defaults."""
    file = Path(path) if path is not None else DEFAULT_PATH
    if not file.exists():
        if path is not None:
            raise ConfigError(f"configuration file {file} does not exist; copy config.example.toml to start")
        return Config()
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {file}: {exc}") from None
    return from_dict(data, str(file))


OWNER_PLATFORMS = ("discord", "telegram", "console")


def _owner_accounts(value: object, source: str) -> tuple[str, ...]:
    """`owner_accounts = ["discord:<user id>", "telegram:<user id>"]`: each a platform and its numeric user id."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(
            f'{source}: club.owner_accounts must be a list like ["discord:123456789012345678", "telegram:123456789"]'
        )
    accounts = []
    for entry in value:
        platform, _, account = entry.strip().partition(":")
        if (
            platform not in OWNER_PLATFORMS
            or not account
            or (platform != "console" and not (account.isascii() and account.isdigit()))
        ):
            raise ConfigError(
                f'{source}: club.owner_accounts: {entry!r} is not "discord:<user id>" or '
                f'"telegram:<user id>" (the numeric id the platform shows for the owner\'s account)'
            )
        accounts.append(f"{platform}:{account}")
    platforms = [a.split(":", 1)[0] for a in accounts]
    if len(set(platforms)) != len(platforms):
        raise ConfigError(f"{source}: club.owner_accounts names two accounts on one platform; the owner has one each")
    return tuple(accounts)


def _discord_roles(value: object, source: str) -> dict[Role, int]:
    words = ", ".join(Role)
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [discord.roles] maps a function ({words}) to a Discord role id, not {value!r}")
    unknown = sorted(str(k) for k in value if k not in set(Role))
    if unknown:
        raise ConfigError(f"{source}: [discord.roles] names {', '.join(unknown)}: the functions are {words}")
    return {Role(k): v for k, v in value.items()}


def _offices(value: object, source: str) -> tuple[Office, ...]:
    words = ", ".join(f'"{office}"' for office in (*Role, OWNER))
    if not isinstance(value, list):
        raise ConfigError(f"{source}: club.referee_names_visible_to must be a list of {words}, not {value!r}")
    try:
        return tuple(office_of(str(word)) for word in value)
    except ValueError:
        raise ConfigError(f"{source}: club.referee_names_visible_to may hold only {words}, not {value!r}") from None


def _club_id(value: object, source: str) -> str:
    try:
        return check_club_id(value)
    except BadClubId as problem:
        raise ConfigError(f"{source}: club.id: {problem}") from None


def _owner_nick(value: object, source: str, scripts: tuple[str, ...]) -> str:
    try:
        return check_scripts(check_nick(value), scripts)
    except NickRefused as problem:
        raise ConfigError(f"{source}: club.owner: {problem}") from None


def _scripts(value: object, source: str) -> tuple[str, ...]:
    """`[club] scripts`: the Unicode scripts a nickname's letters may be of, e.g. ``["latin", "cyrillic"]``."""
    known = ", ".join(f'"{s.lower()}"' for s in KNOWN_SCRIPTS)
    if not isinstance(value, list) or not value or not all(isinstance(s, str) for s in value):
        raise ConfigError(f"{source}: club.scripts must be a list of script names from {known}, not {value!r}")
    wrong = [s for s in value if s.upper() not in KNOWN_SCRIPTS]
    if wrong:
        raise ConfigError(f"{source}: club.scripts: {wrong[0]!r} is not a script name; use {known}")
    return tuple(dict.fromkeys(s.upper() for s in value))


def check_owner(config: Config, platforms: list[str]) -> None:
    """At start: the owner's powers need his nickname and his account, so a club served on `platforms` must name
    the owner (`[club] owner`) and his account on at least one of them (`[club] owner_accounts`)."""
    example = ", ".join(f'"{p}:<{p} user id of the owner>"' for p in platforms)
    if config.owner is None:
        raise ConfigError(
            f'[club] owner is not set: put the owner\'s club nickname there (owner = "vesna") and his '
            f"accounts in [club] owner_accounts = [{example}] (see docs/discord.md, docs/telegram.md)"
        )
    if not any(a.split(":", 1)[0] in platforms for a in config.owner_accounts):
        raise ConfigError(
            f"[club] owner_accounts names no account of the owner {config.owner} on "
            f"{' or '.join(platforms)}: put owner_accounts = [{example}] in [club] (the numeric user "
            f"id: on Discord, Developer Mode → right-click the owner → Copy User ID; on Telegram, the "
            f"id a bot such as @userinfobot shows him); see docs/discord.md, docs/telegram.md"
        )


def require_secret(link: GameServerConfig) -> str:
    """The game-server link's shared secret, or `ConfigError` naming the variable to set."""
    secret = link.secret
    if secret is None:
        raise ConfigError(
            f"the game-server link is configured (gameserver.url) but the environment variable "
            f"{link.secret_env} holds no shared secret; set it to the secret the game server uses"
        )
    return secret


def check_start(config: Config, platforms: list[str]) -> None:
    """Everything about the configuration `sudija run` needs before it opens anything (the database, its lock, a
    socket): a club served on `platforms` names its owner (`check_owner`), and a configured game-server link has
    its secret. `ConfigError`, one line naming the setting and the fix, on the first thing missing."""
    if platforms:
        check_owner(config, platforms)
    if config.gameserver.enabled:
        from bot.gameserver.link import link_keys  # noqa: PLC0415 (the link imports this module)

        link_keys(config.gameserver)  # every secret the link's keys name, before anything opens


def _check_import(imports: ImportConfig, source: str) -> None:
    if not isinstance(imports.watch, str):
        raise ConfigError(
            f'{source}: import.watch must be a folder\'s path like "/var/lib/sudija/logs", not {imports.watch!r}'
        )
    poll = imports.poll_seconds
    if not isinstance(poll, (int, float)) or isinstance(poll, bool) or not 0 < poll <= 3600:
        raise ConfigError(
            f"{source}: import.poll_seconds must be a number of seconds above 0 and at most 3600, not {poll!r}"
        )


def sections() -> tuple[str, ...]:
    """The file's sections: [club], and one per nested settings of `Config` (a new one is known at once), named as
    the field is unless its metadata says otherwise (`[import]` is `Config.imports`)."""
    return ("club", *(f.metadata.get("section", f.name) for f in fields(Config) if f.default_factory is not MISSING))


def _section(data: dict[str, Any], name: str, source: str) -> dict[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: [{name}] must be a section of settings, not {value!r}")
    return dict(value)


#: The whole-number settings no other check bounds, with the range a club may set (a minute to a day for a call, a
#: day to ten years for the right to a trial, …): a value outside it, or of another type, is refused at start rather
#: than met by a member as a call "lasting -1 minute" or as a crash when a deadline overflows the calendar.
WHOLE_NUMBERS: dict[tuple[str, str], tuple[int, int]] = {
    ("club", "call_minutes"): (1, 24 * 60),
    ("club", "claim_days"): (1, 3650),
    ("club", "referee_offline_grace_seconds"): (0, 86400),
    ("club", "settlement_finished_min_bule"): (0, 100_000),
    ("club", "league_grace_days"): (0, 365),
    ("penalties", "plavac_max_days"): (0, 3650),
    ("penalties", "league_max_points"): (0, 100_000),
    ("penalties", "settlement_delay_minutes"): (0, 366 * 24 * 60),
    ("penalties", "abandon_league_points"): (-100_000, 100_000),
    ("governance", "vote_days"): (1, 365),
}


def _settings(section: str, given: dict[str, Any], kind: type, source: str) -> None:
    """`ConfigError` for a setting `kind` does not have, for a value of another type than its default's (a yes/no,
    a whole number, a text), and for a whole number outside `WHOLE_NUMBERS`' range."""
    known = {f.name: f for f in fields(kind) if section != "club" or f.default_factory is MISSING}
    for name, value in given.items():
        setting = known.get(name)
        if setting is None:
            shown = "id" if name == "club_id" else name
            raise ConfigError(f"{source}: {section}.{shown} is not a setting of [{section}]; see config.example.toml")
        default = setting.default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: {section}.{name} must be true or false, not {value!r}")
        elif isinstance(default, int):
            low, high = WHOLE_NUMBERS.get((section, name), (-(2**63), 2**63 - 1))
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ConfigError(
                    f"{source}: {section}.{name} must be a whole number from {low} to {high}, not {value!r}"
                )
        elif isinstance(default, str) and not (isinstance(value, str) and value):
            raise ConfigError(f"{source}: {section}.{name} must be a text in quotes, not empty, not {value!r}")


def from_dict(data: dict[str, Any], source: str = "configuration") -> Config:
    data = with_pack(data, source)
    known = sections()
    unknown = [name for name in data if name not in known]
    if unknown:
        raise ConfigError(
            f"{source}: [{unknown[0]}] is not a section of the configuration (they are: {', '.join(known)}); "
            "see config.example.toml"
        )
    club = dict(data.get("club", {}))
    discord = dict(data.get("discord", {}))
    telegram = dict(data.get("telegram", {}))
    try:
        if "roles" in discord:
            discord["roles"] = _discord_roles(discord["roles"], source)
        if "referee_names_visible_to" in club:
            club["referee_names_visible_to"] = _offices(club["referee_names_visible_to"], source)
        if "owner_accounts" in club:
            club["owner_accounts"] = _owner_accounts(club["owner_accounts"], source)
        if "scripts" in club:
            club["scripts"] = _scripts(club["scripts"], source)
        if club.get("owner") is not None:
            club["owner"] = _owner_nick(club["owner"], source, club.get("scripts", DEFAULT_SCRIPTS))
        if "club_id" in club:
            raise ConfigError(f'{source}: club.club_id is not a setting: the club\'s id is [club] id = "beograd"')
        if "id" in club:
            club["club_id"] = _club_id(club.pop("id"), source)
        if club.get("space_refused", "relay") not in ("relay", "interrupt"):
            raise ConfigError(
                f'{source}: club.space_refused is "relay" (the trial goes on privately) or "interrupt" (it ends), '
                f"not {club['space_refused']!r}"
            )
        _settings("club", club, Config, source)
        penalties = dict(data.get("penalties", {}))
        _settings("penalties", penalties, PenaltyConfig, source)
        _settings("governance", _section(data, "governance", source), GovernanceConfig, source)
        penalties["catalogue"] = parse_catalogue(penalties.get("catalogue", []))
        penalties["escalation"] = parse_escalation(penalties.get("escalation", {}))
        penalties["rules"] = parse_rules(penalties.get("rules", []))
        config = Config(
            **club,
            discord=DiscordConfig(**discord),
            telegram=TelegramConfig(**telegram),
            penalties=PenaltyConfig(**penalties),
            governance=GovernanceConfig(**data.get("governance", {})),
            links=LinksConfig(**data.get("links", {})),
            appeals=parse_appeal_rules(data.get("appeals", {})),
            gameserver=GameServerConfig(**dict(data.get("gameserver", {}))),
            outbox=OutboxConfig(**dict(data.get("outbox", {}))),
            imports=ImportConfig(**_section(data, "import", source)),
            arbitar=ArbitarConfig(**dict(data.get("arbitar", {}))),
            log=LogConfig(**_section(data, "log", source)),
            http=HttpConfig(**_section(data, "http", source)),
            web=WebConfig(**_section(data, "web", source)),
        )
    except (CatalogueError, AppealConfigError, PenaltyModelError) as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except TypeError as exc:
        raise ConfigError(f"{source}: {exc}; see config.example.toml for the settings") from None
    try:
        share = Fraction(config.penalties.settlement_played_share)
    except (ValueError, ZeroDivisionError):
        share = Fraction(-1)
    if not 0 <= share <= 1:
        raise ConfigError(
            f'{source}: penalties.settlement_played_share must be a fraction like "2/3", not '
            f"{config.penalties.settlement_played_share!r}"
        )
    link = config.gameserver
    if link.enabled and not link.url.startswith(("http://", "https://")):
        raise ConfigError(f"{source}: gameserver.url must start with http:// or https://, not {link.url!r}")
    if not 0 < link.port < 65536:
        raise ConfigError(f"{source}: gameserver.port must be from 1 to 65535, not {link.port}")
    for name in ("key_id", "previous_key_id", "events_key_id"):
        value = getattr(link, name)
        if value and not KEY_ID.fullmatch(value):
            raise ConfigError(
                f"{source}: gameserver.{name} must be 1 to 64 letters, digits, '.', '_' or '-', not {value!r}"
            )
    if link.previous_key_id and link.previous_key_id == (link.events_key_id or link.key_id):
        raise ConfigError(f"{source}: gameserver.previous_key_id names the new key's id; give the old key its own")
    for name in ("timestamp_window_seconds", "clock_tolerance_seconds"):
        if not 0 < getattr(link, name) <= 86400:
            raise ConfigError(f"{source}: gameserver.{name} must be from 1 to 86400 seconds")
    if not 0 < link.query_timeout_seconds <= 60:
        raise ConfigError(f"{source}: gameserver.query_timeout_seconds must be more than 0 and at most 60")
    try:
        parse_majority(config.governance.majority)
    except (ValueError, ZeroDivisionError):
        raise ConfigError(
            f'{source}: governance.majority must be a share below 1 like "1/2" or "2/3", not '
            f"{config.governance.majority!r}"
        ) from None
    tries, age = config.outbox.max_attempts, config.outbox.max_age_minutes
    if not isinstance(tries, int) or isinstance(tries, bool) or tries < 1:
        raise ConfigError(f"{source}: outbox.max_attempts must be a whole number of at least 1, not {tries!r}")
    if not isinstance(age, (int, float)) or isinstance(age, bool) or age <= 0:
        raise ConfigError(f"{source}: outbox.max_age_minutes must be a number of minutes above 0, not {age!r}")
    pace = config.telegram.roll_call_per_second
    if not isinstance(pace, (int, float)) or isinstance(pace, bool) or not 0 < pace <= 20:
        raise ConfigError(
            f"{source}: telegram.roll_call_per_second must be a number above 0 and at most 20, not {pace!r}"
        )
    grace = config.outbox.stop_grace_seconds
    if not isinstance(grace, (int, float)) or isinstance(grace, bool) or not 0 <= grace <= 60:
        raise ConfigError(f"{source}: outbox.stop_grace_seconds must be a number from 0 to 60, not {grace!r}")
    _check_import(config.imports, source)
    workers = config.arbitar.workers
    if not isinstance(workers, int) or isinstance(workers, bool) or not 0 <= workers <= 64:
        raise ConfigError(f"{source}: arbitar.workers must be a whole number from 0 to 64, not {workers!r}")
    memory = config.arbitar.memory_mb
    if not isinstance(memory, int) or isinstance(memory, bool) or not 1 <= memory <= 1 << 20:
        raise ConfigError(f"{source}: arbitar.memory_mb must be a whole number of megabytes, not {memory!r}")
    short = check_budget(workers, memory)
    if short is not None:
        raise ConfigError(f"{source}: arbitar.memory_mb: {short}")
    if config.discord.role_changes not in ("undo", "leave"):
        raise ConfigError(
            f'{source}: discord.role_changes must be "undo" or "leave", not {config.discord.role_changes!r}'
        )
    for name in ("requests_per_hour", "codes_per_hour"):
        value = getattr(config.links, name)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 1000:
            raise ConfigError(f"{source}: links.{name} must be a whole number from 1 to 1000, not {value!r}")
    if config.log.level not in LOG_LEVELS:
        raise ConfigError(f"{source}: log.level must be one of {', '.join(LOG_LEVELS)}, not {config.log.level!r}")
    if config.log.format not in LOG_FORMATS:
        raise ConfigError(f'{source}: log.format must be "text" or "json", not {config.log.format!r}')
    http = config.http
    if not isinstance(http.port, int) or isinstance(http.port, bool) or not 0 <= http.port < 65536:
        raise ConfigError(f"{source}: http.port must be from 1 to 65535 (0: off), not {http.port!r}")
    if not isinstance(http.host, str) or not http.host:
        raise ConfigError(f'{source}: http.host must be an address like "127.0.0.1", not {http.host!r}')
    _check_web(config.web, source)
    if config.governance.vote_days < 1:
        raise ConfigError(f"{source}: governance.vote_days must be at least 1")
    if config.language not in LANGUAGES:
        raise ConfigError(f"{source}: language must be one of {', '.join(LANGUAGES)}, not {config.language!r}")
    if not known_zone(config.timezone):
        raise ConfigError(f'{source}: timezone must be a zone name like "Europe/Belgrade", not {config.timezone!r}')
    return config


def _check_web(web: WebConfig, source: str) -> None:
    if not isinstance(web.port, int) or isinstance(web.port, bool) or not 0 <= web.port < 65536:
        raise ConfigError(f"{source}: web.port must be from 1 to 65535 (0: no web pages), not {web.port!r}")
    if web.public_url and not web.public_url.startswith(("http://", "https://")):
        raise ConfigError(
            f'{source}: web.public_url must be the address members open, like "https://klub.example", not '
            f"{web.public_url!r}"
        )
    days = web.session_days
    if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= 365:
        raise ConfigError(f"{source}: web.session_days must be a whole number of days from 1 to 365, not {days!r}")
    if web.telegram_login and not web.telegram_bot:
        raise ConfigError(
            f'{source}: web.telegram_login needs web.telegram_bot, the bot\'s username (telegram_bot = "KlubSudijaBot")'
        )
