"""A use case's refusal as a domain exception: the message key and its values, never a rendered text.

Use cases `raise Refused("call.already_open", game=…)`; their door renders it in the reader's language — every use
case is marked `bot.desk.deps.shows_refusals`, and the registry's `run` renders one raised below it too — as a
`Reply` with `ok=False`, so what the adapters receive is a reply. A refusal changes nothing: it is raised before
any write, or after a write that the refusal reports (nothing rolls back, as nothing is held in a transaction by
the desk).
"""

from __future__ import annotations


class Refused(Exception):
    """The use case refuses; `key` names the message, `values` fill it."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(key)
        self.key = key
        self.values = values

    def __repr__(self) -> str:
        return f"Refused({self.key!r}, **{self.values!r})"
