"""Presets: each source document's event as data over the general engine (formats.md "Presets").

A preset is a settings document; ``settings`` given at event creation override it key by
key. Each game declares its presets with itself (``app/core/games/registry.py``: ``GAMES``); they
are collected here from those declarations; ``generic`` is the plain default.
"""

from __future__ import annotations

import copy
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.event_settings import DEFAULT_SETTINGS, merge
from app.core.games import registry as games

PRESETS: dict[str, dict[str, Any]] = {"generic": DEFAULT_SETTINGS, **games.PRESETS}


def resolve(preset: str | None, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """The preset's settings with the caller's overrides applied (not yet validated)."""
    name = preset or "generic"
    base = PRESETS.get(name)
    if base is None:
        raise InvalidInput(
            f"unknown preset {name!r}",
            [Problem(("preset",), f"unknown preset {name!r}; available: {', '.join(sorted(PRESETS))}")],
        )
    return merge(copy.deepcopy(base), overrides or {})
