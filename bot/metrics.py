"""The bot's figures for Prometheus (`/metrics` of `sudija run`, bot/http.py), in one registry of this process.

Two kinds. What happens in this process is counted as it happens: each command run through `bot.registry.run`
and its time, each button pressed and the time from the press to its answer, per platform; how late a deadline was
acted on; each Arbitar analysis and its time; each request a platform rate limited. What the club's tables hold is
read from the database at each scrape (`storage.observed`), so it is the club's truth whichever process did the work
and survives a restart: the calls,
takes, trials and verdicts by kind, the chat effects and each platform's deliveries by state, the game server's
events received and commands by state, and the age of the oldest effect and command still waiting. Every series
has a ``club`` label (several clubs may be served by one process).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from storage.observed import Observed

REGISTRY = CollectorRegistry(auto_describe=True)
LATENCY = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)  # seconds: a member waits for these
LATENESS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0)  # seconds after a deadline fell
ANALYSIS = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)  # seconds an Arbitar analysis takes

COMMANDS = Counter(
    "sudija_commands",
    "Commands run (bot.registry.run), by platform, command and outcome (ok, refused)",
    ["club", "platform", "command", "outcome"],
    registry=REGISTRY,
)
COMMAND_SECONDS = Histogram(
    "sudija_command_seconds",
    "From a command reaching the desk to its answer, by platform",
    ["club", "platform"],
    buckets=LATENCY,
    registry=REGISTRY,
)
PRESSES = Counter(
    "sudija_presses",
    "Buttons pressed (Sudi, Povuci, …), by platform, action and outcome (ok, refused)",
    ["club", "platform", "action", "outcome"],
    registry=REGISTRY,
)
PRESS_SECONDS = Histogram(
    "sudija_press_seconds",
    "From a button's press reaching the desk to its answer, by platform",
    ["club", "platform"],
    buckets=LATENCY,
    registry=REGISTRY,
)
DEADLINE_LATENESS = Histogram(
    "sudija_deadline_lateness_seconds",
    "How long after a deadline fell it was acted on, by kind (call: a call expiring)",
    ["club", "kind"],
    buckets=LATENESS,
    registry=REGISTRY,
)
ARBITAR_SECONDS = Histogram(
    "sudija_arbitar_analysis_seconds",
    "Arbitar analyses (the referee's /analiza, the players' Arbitar correction) and their time, by outcome",
    ["club", "outcome"],
    buckets=ANALYSIS,
    registry=REGISTRY,
)


GATEWAY_HELD = Gauge(
    "sudija_gateway_held",
    "1 while this process receives the club's events (on PostgreSQL: holds its gateway lock), 0 while it stands by",
    ["club"],
    registry=REGISTRY,
)
PLATFORM_CONNECTED = Gauge(
    "sudija_platform_connected",
    "1 while this process is connected to the platform",
    ["club", "platform"],
    registry=REGISTRY,
)

REPORTS_HELD = Gauge(
    "sudija_reports_held",
    "Platform reports (a member left, his presence, a member's sync) the database could not take yet: held by this"
    " process and done again when it frees (bot/desk/reported.py)",
    ["club"],
    registry=REGISTRY,
)

PLATFORM_RATE_LIMITED = Counter(
    "sudija_platform_rate_limited",
    "Requests a platform rate limited and the bot will ask again, by platform and request (members: the server's"
    " whole member list, bot/member_list.py)",
    ["club", "platform", "request"],
    registry=REGISTRY,
)


def command_done(club: str, platform: str, command: str, outcome: str, seconds: float) -> None:
    COMMANDS.labels(club, platform, command, outcome).inc()
    COMMAND_SECONDS.labels(club, platform).observe(seconds)


def press_done(club: str, platform: str, action: str, outcome: str, seconds: float) -> None:
    PRESSES.labels(club, platform, action, outcome).inc()
    PRESS_SECONDS.labels(club, platform).observe(seconds)


def deadline_acted(club: str, kind: str, late_seconds: float) -> None:
    DEADLINE_LATENESS.labels(club, kind).observe(max(0.0, late_seconds))


def analysis_done(club: str, outcome: str, seconds: float) -> None:
    ARBITAR_SECONDS.labels(club, outcome).observe(seconds)


class ClubTables(Collector):
    """The figures read from each served club's tables, as of the last `refresh` (the scrape refreshes first)."""

    def __init__(self) -> None:
        self.observed: dict[str, Observed] = {}

    def refresh(self, club: str, observed: Observed) -> None:
        self.observed[club] = observed

    def describe(self) -> Iterable[Metric]:
        return []  # the families vary with the clubs served: described when collected

    def collect(self) -> Iterator[Metric]:
        calls = CounterMetricFamily("sudija_calls", "Calls for a referee made, by kind", labels=["club", "kind"])
        takes = CounterMetricFamily("sudija_takes", "Calls a referee took (Sudi), by kind", labels=["club", "kind"])
        trials = CounterMetricFamily(
            "sudija_trials", "Trials opened, by kind and outcome (open, verdict, …)", labels=["club", "kind", "outcome"]
        )
        verdicts = CounterMetricFamily("sudija_verdicts", "Verdicts recorded, by kind", labels=["club", "kind"])
        effects = GaugeMetricFamily("sudija_effects", "Chat effects by state", labels=["club", "state"])
        deliveries = GaugeMetricFamily(
            "sudija_effect_deliveries",
            "Each platform's part of the chat effects, by state",
            labels=["club", "platform", "state"],
        )
        events = CounterMetricFamily(
            "sudija_gameserver_events", "Game-server events received, by type", labels=["club", "type"]
        )
        commands = GaugeMetricFamily(
            "sudija_gameserver_commands",
            "Commands to the game server, by kind and state",
            labels=["club", "kind", "state"],
        )
        oldest = GaugeMetricFamily(
            "sudija_oldest_waiting_seconds",
            "Age of the oldest chat effect (outbox=chat) or game-server command (outbox=gameserver) waiting; 0: none",
            labels=["club", "outbox"],
        )
        for club, seen in sorted(self.observed.items()):
            for kind, count in sorted(seen.calls.items()):
                calls.add_metric([club, kind], count)
            for kind, count in sorted(seen.takes.items()):
                takes.add_metric([club, kind], count)
            for (kind, outcome), count in sorted(seen.trials.items()):
                trials.add_metric([club, kind, outcome], count)
            for kind, count in sorted(seen.verdicts.items()):
                verdicts.add_metric([club, kind], count)
            for state, count in sorted(seen.effects.items()):
                effects.add_metric([club, state], count)
            for (platform, state), count in sorted(seen.deliveries.items()):
                deliveries.add_metric([club, platform, state], count)
            for kind, count in sorted(seen.events.items()):
                events.add_metric([club, kind], count)
            for (kind, state), count in sorted(seen.commands.items()):
                commands.add_metric([club, kind, state], count)
            oldest.add_metric([club, "chat"], seen.oldest_effect_seconds)
            oldest.add_metric([club, "gameserver"], seen.oldest_command_seconds)
        yield from (calls, takes, trials, verdicts, effects, deliveries, events, commands, oldest)


TABLES = ClubTables()
REGISTRY.register(TABLES)
