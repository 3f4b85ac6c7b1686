"""Every router of the API, in the order the app includes them: ``ROUTERS`` (app/main.py includes
them, then the pages' routers of app/web).

A game's HTTP surface is one module of ``GAME_MODULES``: its own routes (what is not adjudication)
in its ``router``, and for a game with a stateless tool (``app/core/games/registry.py`` ``GAMES``)
that tool's request schema in its ``VERDICT_ROUTE``, from which app/api/verdicts.py ``tool_router``
makes ``POST /v1/adjudicate/{game}``. A game whose tool has no ``VERDICT_ROUTE``, or a
``VERDICT_ROUTE`` for a game without a tool, fails as this package is imported."""

from __future__ import annotations

from fastapi import APIRouter

from app.api import (
    battlebooks,
    battlebooks_royal,
    bga,
    events,
    games,
    hall,
    health,
    jobs,
    live,
    matches,
    metrics,
    players,
    presets,
    ratings,
    rite_of_command,
    rounds,
    schedules,
    seasons,
    staff,
    standings,
    strategic_titan,
    titan_arena,
    verdicts,
    webhooks,
)

GAME_MODULES = (rite_of_command, strategic_titan, battlebooks, titan_arena, battlebooks_royal, bga)

# A request is routed by trying each router in turn: the matches' router, where results are reported
# (the write path under load), is tried first (docs/operations.md "Scale").
ROUTERS: tuple[APIRouter, ...] = (
    matches.router,
    health.router,
    metrics.router,
    players.router,
    games.router,
    events.router,
    presets.router,
    rounds.router,
    standings.router,
    staff.router,
    hall.router,
    seasons.router,
    live.router,
    webhooks.router,
    schedules.router,
    jobs.router,
    ratings.router,
    verdicts.tool_router(m.VERDICT_ROUTE for m in GAME_MODULES if hasattr(m, "VERDICT_ROUTE")),
    *(m.router for m in GAME_MODULES if hasattr(m, "router")),
)
