"""The club's languages: gettext catalogues (`.po`, one per language under `locale/`) read with Babel.

`bot.i18n.catalogues` loads them (keys are the msgids; plural entries chosen by the language's CLDR plural rule),
`bot.i18n.cyrillic` makes Serbian Cyrillic from Serbian Latin letter by letter, and `bot.i18n.import_dict` brings
entries written in the old Python-dict format (``"key": ("srpski", "English")``) into the catalogues, and
`bot.i18n.glossary` writes the preferans terms from their source, the table in `docs/glossary-ru.md`.
"""

from storage.states import Language

#: The languages, in the order `bot.messages.MESSAGES` tuples list them: Serbian (Latin, the default), English,
#: Serbian Cyrillic, Russian (`member_languages.language` holds exactly these).
LANGUAGES: tuple[str, ...] = tuple(language.value for language in Language)

#: Each language's catalogue directory under `locale/` and the locale its plural rule and dates are taken from.
LOCALES: dict[str, str] = {"sr": "sr_Latn", "en": "en", "sr-Cyrl": "sr_Cyrl", "ru": "ru"}

#: Where a language without its own text for a key takes it from (explicitly; nothing else falls back).
FALLBACK: dict[str, str] = {"ru": "en"}

#: Telegram's menus: a client's language code → the catalogue language its menu is written in.
TELEGRAM_LANGUAGES: dict[str, str] = {"sr": "sr", "en": "en", "ru": "ru"}
