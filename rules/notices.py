"""A notice: one copy of a call's message on a platform (its place and message id there), so that every copy can
be edited when the call is taken, withdrawn or expires. Platforms make them; the repositories store them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Notice:
    platform: str
    place: str
    message: str
