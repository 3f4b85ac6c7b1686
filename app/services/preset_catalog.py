"""The presets an event may be created from, with the settings each stands for (``GET /v1/presets``,
the console's form)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core import presets
from app.db.models import Game
from app.services.games import list_games


@dataclass(frozen=True)
class PresetView:
    name: str
    settings: dict[str, Any]  # the preset's document, before an event's overrides


def list_presets() -> list[PresetView]:
    """Every preset by name, ``generic`` first."""
    names = sorted(presets.PRESETS, key=lambda n: (n != "generic", n))
    return [PresetView(n, presets.resolve(n, None)) for n in names]


def get_preset(name: str) -> PresetView:
    """One preset (an unknown name is the InvalidInput the creation of an event gives)."""
    return PresetView(name, presets.resolve(name, None))


async def preset_games(session: AsyncSession, name: str) -> tuple[list[Game], bool]:
    """The games of the catalog an event of the preset may play (``presets.games_for``, the rule
    the creation of an event checks), and whether the preset restricts them (else: all of them)."""
    catalog = await list_games(session)
    allowed = presets.games_for(name, [(g.key, g.adjudicator) for g in catalog])
    return (catalog, False) if allowed is None else ([g for g in catalog if g.key in allowed], True)
