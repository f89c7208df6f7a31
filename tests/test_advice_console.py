"""The referee's second opinion in the console club (`bot.console.runner.run_console`, a script on standard input):
the players' ispravka and an earlier verdict warned of in the referee's private chat, ``/analiza`` and the
Analiza ruke buttons beside Prikaz ruke answering with the Arbitar's own output, the draft's difference, and no
player seeing any of it."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_advice import GAME, cli_text, contains_block, fall_game

from bot.config import Config
from bot.console.adapter import PLATFORM
from bot.console.runner import run_console
from bot.ports import ManualClock
from club import NOW
from storage.database import open_database
from storage.games import PreparedGame

HEAD = re.compile(r"^\[(?P<tag>[^\]]+)\] (?P<text>.*)$")


@dataclass
class Printed:
    tag: str
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def printed(out: str) -> list[Printed]:
    """The console's output as messages: ``[tag] first line`` and its indented continuation lines."""
    messages: list[Printed] = []
    current: Printed | None = None
    indent = 0
    for line in out.splitlines():
        match = HEAD.match(line)
        if match is not None:
            current = Printed(match["tag"], [match["text"]])
            indent = len(match["tag"]) + 3
            messages.append(current)
        elif current is not None and (line == "" or line.startswith(" " * indent)):
            current.lines.append(line[indent:])
        else:
            current = None
    return messages


async def prepare(path: Path) -> None:
    db = await open_database(path)
    try:
        await db.games.store([PreparedGame.of(fall_game())], NOW)
        roles = {"sudija1": "referee", "sudija2": "referee"}
        for nick in ("ana", "marko", "petar", "sudija1", "sudija2"):
            member = await db.members.link(PLATFORM, nick, nick, NOW)
            if nick in roles:
                await db.members.set_role(member.id, roles[nick], True, None, NOW)
            await db.members.set_presence(member.id, True, NOW)
    finally:
        await db.close()


SCRIPT = """\
@marko /ispravka 1
@ana /prihvatam
@petar /prihvatam
@petar /sudija 300
@sudija1 !press Sudi
@sudija1 /analiza 2
@marko /analiza 2
@sudija1 !press Prikaz ruke
@sudija1 !press Analiza ruke 1
@sudija1 /presuda bula 2 petar -- pratio bez rezona
@sudija1 !press Završi suđenje
@ana /sudija 300
@sudija2 !press Sudi
"""


async def test_the_console_club_warns_and_advises_the_referee_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "club.db"
    await prepare(db)
    out, err = io.StringIO(), io.StringIO()
    status = await run_console(Config(), str(db), False, io.StringIO(SCRIPT), out, err, clock=ManualClock(NOW))
    assert (status, err.getvalue()) == (0, ""), err.getvalue()
    messages = printed(out.getvalue())
    to_referee = [m for m in messages if m.tag == "dm sudija1"]

    # the first trial: the players' ispravka on hand 1 is warned of, privately
    [brief] = [m for m in to_referee if m.lines[0].startswith("Pre presude")]
    assert "⚠ ruka 1 nosi ispravku igrača marko: upis kao da je igra prošla" in brief.lines

    # /analiza 2 and the button Analiza ruke 1 beside Prikaz ruke: the Arbitar's own output
    game = fall_game()
    advice = [m for m in to_referee if m.lines[0].startswith("Savet Arbitra")]
    assert [m.lines[0].split(" — ")[0] for m in advice] == [
        f"Savet Arbitra, partija {GAME}, ruka 2",
        f"Savet Arbitra, partija {GAME}, ruka 1",
    ]
    assert contains_block(advice[0].lines, cli_text(tmp_path, capsys, game, 2, "marko"))
    assert "  Arbitar: pad ostaje — nije očigledna greška" in advice[0].lines
    assert contains_block(advice[1].lines, cli_text(tmp_path, capsys, game, 1, "marko"))
    assert any(line.startswith("  Arbitar: pad prelazi na petar") for line in advice[1].lines)
    [hands] = [m for m in to_referee if m.lines[0] == f"Partija {GAME} — ana, marko, petar"]
    assert any(line.endswith("→ marko") for line in hands.lines)
    assert hands.lines[-1].endswith("  [Analiza ruke 1] [Analiza ruke 2]")

    # the draft of bula on the not-obvious hand: saved, with the Arbitar's difference
    [draft] = [m for m in to_referee if "Savet Arbitra drugačiji je od nacrta" in m.text]
    assert draft.lines[-1] == "Arbitar: pad ostaje — nije očigledna greška"

    # the second trial: sudija2 is told hand 2 was judged in the first trial, and of the ispravka
    [second] = [m for m in messages if m.tag == "dm sudija2" and m.lines[0].startswith("Pre presude")]
    assert any(
        line.startswith("⚠ ruka 2 je već presuđena u suđenju 1: ") and "pratio bez rezona" in line
        for line in second.lines
    )
    assert "⚠ ruka 1 nosi ispravku igrača marko: upis kao da je igra prošla" in second.lines

    # a player asking is refused, and no player or trial space ever sees the advice or the warnings
    assert Printed("dm marko", ["Ne sudite u tom suđenju (ili je ono završeno)."]) in messages
    for message in messages:
        if message.tag not in ("dm sudija1", "dm sudija2"):
            for phrase in ("Savet Arbitra", "Izlaz Arbitra", "Arbitar: pad", "Pre presude", "već presuđena"):
                assert phrase not in message.text, (message.tag, message.text)
