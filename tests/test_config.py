"""config.example.toml is a valid configuration that shows every setting; bad files get a clear message."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from bot.config import Config, ConfigError, from_dict, load
from rules.members import OWNER, Role

EXAMPLE = Path(__file__).resolve().parent.parent / "config.example.toml"


def test_the_example_loads_to_the_defaults() -> None:
    assert load(EXAMPLE) == Config()


def test_the_example_shows_every_setting() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    shown = set(re.findall(r"^#?\s*([a-z_]+)\s*=", text, flags=re.MULTILINE))
    shown |= set(re.findall(r"^#?\s*\[+[a-z_.]*?([a-z_]+)\]+", text, flags=re.MULTILINE))
    sections = {
        "club": Config,
        **{
            f.name: f.default_factory
            for f in dataclasses.fields(Config)  # type: ignore[misc]
            if f.default_factory is not dataclasses.MISSING
        },
    }
    for section, kind in sections.items():
        names = {  # a section named otherwise than its field ([import]: Config.imports) is shown by its name
            f.metadata.get("section", f.name)
            for f in dataclasses.fields(kind)
            if f.name not in ("discord", "telegram", "penalties")
        }
        names = {"id" if n == "club_id" else n for n in names}  # [club] id is Config.club_id
        missing = names - shown - {"roles"}
        assert not missing, (section, missing)
    assert tomllib.loads(text)["club"]["language"] == "sr"


def test_bad_configuration_says_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="language must be"):
        from_dict({"club": {"language": "de"}})
    with pytest.raises(ConfigError, match=r"config\.example\.toml"):
        from_dict({"club": {"colour": "red"}})
    broken = tmp_path / "config.toml"
    broken.write_text("[club\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cannot read"):
        load(broken)
    with pytest.raises(ConfigError, match="does not exist"):
        load(tmp_path / "missing.toml")


@pytest.mark.parametrize(
    ("section", "setting", "value", "said"),
    [
        ("club", "call_minutes", -1, r"club\.call_minutes must be a whole number from 1 to 1440, not -1"),
        ("club", "call_minutes", 0, r"club\.call_minutes must be a whole number from 1 to 1440, not 0"),
        ("club", "call_minutes", "pet", r"club\.call_minutes must be a whole number from 1 to 1440, not 'pet'"),
        ("club", "call_minutes", 99_999_999_999, r"club\.call_minutes must be a whole number"),
        ("club", "call_minutes", True, r"club\.call_minutes must be a whole number"),
        ("club", "claim_days", 0, r"club\.claim_days must be a whole number from 1 to 3650, not 0"),
        ("club", "referee_offline_grace_seconds", 1e9, r"club\.referee_offline_grace_seconds must be a whole number"),
        ("club", "referee_offline_grace_seconds", -5, r"club\.referee_offline_grace_seconds must be a whole number"),
        ("club", "league_grace_days", "3", r"club\.league_grace_days must be a whole number"),
        ("club", "direct_messages", "da", r"club\.direct_messages must be true or false, not 'da'"),
        ("club", "database", "", r"club\.database must be a text in quotes, not empty"),
        ("club", "database", 5, r"club\.database must be a text in quotes"),
        ("club", "bogus_key", 1, r"club\.bogus_key is not a setting of \[club\]; see config\.example\.toml"),
        ("club", "discord", 1, r"club\.discord is not a setting of \[club\]"),
        ("penalties", "plavac_max_days", -1, r"penalties\.plavac_max_days must be a whole number from 0 to 3650"),
        ("penalties", "league_max_points", "deset", r"penalties\.league_max_points must be a whole number"),
        ("penalties", "settlement_delay_minutes", 10**12, r"penalties\.settlement_delay_minutes must be a whole"),
        ("penalties", "plavac", 3, r"penalties\.plavac is not a setting of \[penalties\]"),
        ("governance", "vote_days", "7", r"governance\.vote_days must be a whole number from 1 to 365, not '7'"),
        ("governance", "vote_days", 0, r"governance\.vote_days must be a whole number from 1 to 365, not 0"),
    ],
)
def test_a_setting_of_the_wrong_type_or_beyond_its_range_is_refused_by_name(
    section: str, setting: str, value: object, said: str
) -> None:
    """A value the club could not mean is refused at start with the setting named, not met later by a member (a call
    "lasting -1 minute") or as a crash (a deadline beyond the calendar, minutes given as a text)."""
    with pytest.raises(ConfigError, match=said):
        from_dict({section: {setting: value}})


def test_the_edges_of_the_ranges_are_settings_a_club_may_choose() -> None:
    config = from_dict({"club": {"call_minutes": 1440, "claim_days": 1, "referee_offline_grace_seconds": 0}})
    assert (config.call_minutes, config.claim_days, config.referee_offline_grace_seconds) == (1440, 1, 0)
    assert from_dict({"penalties": {"abandon_league_points": -100_000}}).penalties.abandon_league_points == -100_000


def test_functions_are_read_as_roles_and_a_wrong_word_is_named() -> None:
    config = from_dict(
        {"club": {"referee_names_visible_to": ["councilor", "owner"]}, "discord": {"roles": {"referee": 11}}}
    )
    assert config.referee_names_visible_to == (Role.COUNCILOR, OWNER)
    assert config.discord.roles == {Role.REFEREE: 11}
    assert all(isinstance(role, Role) for role in config.discord.roles)
    with pytest.raises(ConfigError, match=r"referee_names_visible_to may hold only .*'sudija'"):
        from_dict({"club": {"referee_names_visible_to": ["sudija"]}})
    with pytest.raises(ConfigError, match="referee_names_visible_to must be a list"):
        from_dict({"club": {"referee_names_visible_to": "owner"}})
    with pytest.raises(ConfigError, match=r"\[discord.roles\] names vecnik: the functions are referee, councilor"):
        from_dict({"discord": {"roles": {"vecnik": 12}}})
    with pytest.raises(ConfigError, match=r"\[discord.roles\] maps a function"):
        from_dict({"discord": {"roles": ["referee"]}})
