"""What a text tells a member to type or to press is what he types or presses in his language: a command's typed
words stay Latin in Serbian Cyrillic prose (`/presuda без` is refused, `/presuda bez` is read), and an English
text names the English buttons, not the Serbian ones ("then Završi suđenje" beside a [Finish the trial] button)."""

from __future__ import annotations

import re

import pytest

from bot.i18n.catalogues import languages
from bot.i18n.cyrillic import kept_parts, to_latin

_COMMAND_AND_WORD = re.compile(r"(?<![\w`])/(\w+) ([^\W\d_A-ZА-Я][^\W\d_]*)")


def typed_words(command: str) -> frozenset[str]:
    """The words a member types after `command`, as its usage line writes them (`bez`, `kazna`, `po` …; not the
    description of a value in angle brackets)."""
    usage = languages()["sr"].texts.get(f"usage.{command}")
    if not isinstance(usage, str):
        return frozenset()
    typed = re.sub(r"<[^<>]*>", " ", " ".join(kept_parts(usage, f"usage.{command}")))  # not <broj partije>
    words = set(re.findall(r"[a-zčćđšž]+", typed))
    return frozenset(words)


def cyrillic_typed_words(text: str) -> list[str]:
    """``/command word`` in a Serbian Cyrillic text where the word right after the command is one of its typed
    words written in Cyrillic letters, which the command does not read."""
    found = []
    for match in _COMMAND_AND_WORD.finditer(text):
        command, word = match.groups()
        if re.search("[а-яђјљњћџ]", word) and to_latin(word) in typed_words(command) - {command}:
            found.append(match.group())
    return found


def test_the_check_finds_a_transliterated_typed_word() -> None:
    assert cyrillic_typed_words("одлуку (/presuda без -- образложење)") == ["/presuda без"]
    assert cyrillic_typed_words("Усвојена: /presuda казна NADIMAK") == ["/presuda казна"]
    assert cyrillic_typed_words("одлуку (/presuda `bez` -- образложење); /web у чету") == []


@pytest.mark.parametrize("language", ["sr-Cyrl"])
def test_a_commands_typed_words_stay_latin_in_cyrillic_prose(language: str) -> None:
    wrong = [
        f"{key}: {found}"
        for key, text in languages()[language].texts.items()
        if not key.startswith(("usage.", "name."))
        for form in ((text,) if isinstance(text, str) else text)
        for found in cyrillic_typed_words(form)
    ]
    assert wrong == []


def serbian_labels_in(text: str, key: str) -> list[str]:
    """The Serbian button labels an English text names outside what is typed (commands, code)."""
    every = languages()
    rest = text
    for part in kept_parts(text, key):
        rest = rest.replace(part, " ", 1)
    found = []
    for label_key, label in every["sr"].texts.items():
        if not label_key.startswith("button.") or not isinstance(label, str) or "{" in label or len(label) < 4:
            continue
        if every["en"].texts.get(label_key) != label and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", rest):
            found.append(label)
    return found


def test_english_texts_name_the_english_buttons() -> None:
    assert serbian_labels_in("write a verdict, then Završi suđenje.", "x") == ["Završi suđenje"]
    assert serbian_labels_in("Sudija: `@ana !press Sudi` works", "x") == []
    wrong = [
        f"{key}: {label}"
        for key, text in languages()["en"].texts.items()
        for form in ((text,) if isinstance(text, str) else text)
        for label in serbian_labels_in(form, key)
    ]
    assert wrong == []
