"""Presets: each source document's event as data over the general engine (formats.md "Presets").

A preset is a settings document; ``settings`` given at event creation override it key by
key. Each game declares its presets with itself (``app/core/games/registry.py``: ``GAMES``); they
are collected here from those declarations; ``generic`` is the plain default.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.event_settings import DEFAULT_SETTINGS, merge
from app.core.games import battlebooks
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


def games_for(preset: str | None, catalog: Iterable[tuple[str, str | None]]) -> list[str] | None:
    """The games of the catalog (``(key, adjudicator)`` pairs) an event of ``preset`` may play, or
    ``None`` for any: a BATTLEBOOKS preset the game ``battlebooks`` (its own rule); a preset a game
    with an adjudicator declares (``wbc-hmwp``: ``titan-arena``) the games that adjudicator judges
    (Titan: The Arena and Colossal Arena); ``generic`` and the presets of a game without one (the
    Board Game Arena round robins, for whichever game is played there) any game."""
    rows = list(catalog)
    if preset and preset.startswith(battlebooks.PRESET_PREFIX):
        return [key for key, _ in rows if not battlebooks.preset_game_problems(preset, key)]
    declared = next((g for g in games.GAMES if preset in g.presets), None)
    if declared is None or declared.adjudicator is None:
        return None
    return [key for key, adjudicator in rows if adjudicator == declared.name]


def game_problems(
    preset: str | None, game_key: str, catalog: Iterable[tuple[str, str | None]]
) -> list[Problem]:
    """An event of ``preset`` on a game it does not play: the problem naming ``preset`` and the games
    it plays."""
    if problems := battlebooks.preset_game_problems(preset, game_key):
        return problems
    allowed = games_for(preset, catalog)
    if allowed is None or game_key in allowed:
        return []
    return [
        Problem(
            ("preset",),
            f"{preset!r} is a preset of {', '.join(allowed) or 'no game in the catalog'}, not of {game_key!r}",
        )
    ]
