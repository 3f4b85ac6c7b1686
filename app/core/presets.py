"""Presets: each source document's event as data over the general engine (formats.md "Presets").

A preset is a settings document; ``settings`` given at event creation override it key by
key. Each game declares its presets with itself (``app/core/games/registry.py``: ``GAMES``); they
are collected here from those declarations; ``generic`` is the plain default.

A preset belongs to its game (battlebooks.md "World rankings"): a preset whose declaration
names the catalog's games it is for (``registry.PRESET_GAMES``) sets up events of those games only;
on an event of another game it is a 422 naming ``game`` (the preset checks and rates what its own
game has: books, heroes, pools). The others suit any game.
"""

from __future__ import annotations

import copy
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.event_settings import DEFAULT_SETTINGS, merge
from app.core.games import registry as games

PRESETS: dict[str, dict[str, Any]] = {"generic": DEFAULT_SETTINGS, **games.PRESETS}


def suits(preset: str | None, game_key: str) -> bool:
    """Whether ``preset`` may set up an event of the catalog's game ``game_key``."""
    allowed = games.PRESET_GAMES.get(preset or "generic", ())
    return not allowed or game_key in allowed


def first_game(preset: str | None) -> str | None:
    """The game a preset's declaration names first (``wbc-hmwp``: the original Titan: The Arena),
    the one its new event is offered; ``None`` for a preset that suits any game."""
    return next(iter(games.PRESET_GAMES.get(preset or "generic", ())), None)


def offered(preset: str | None) -> dict[str, str]:
    """The settings a preset leaves unset that its new event form offers blank, each with its kind
    (``int``, ``datetime``), as its game declares them (a Board Game Arena event's deadlines)."""
    return dict(games.PRESET_OFFERED.get(preset or "generic", {}))


def game_problems(preset: str | None, game_key: str) -> list[Problem]:
    """The problem, naming ``game``, of a preset on an event of a game it does not belong to."""
    if suits(preset, game_key):
        return []
    allowed = " or ".join(repr(g) for g in games.PRESET_GAMES[preset or "generic"])
    return [
        Problem(("game",), f"the preset {preset!r} sets up events of the game {allowed}, not {game_key!r}")
    ]


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
