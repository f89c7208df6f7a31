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
