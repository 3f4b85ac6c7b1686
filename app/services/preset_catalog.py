"""The presets an event may be created from, with the settings each stands for (``GET /v1/presets``,
the console's form)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.core import presets


@dataclass(frozen=True)
class PresetView:
    name: str
    settings: dict[str, Any]  # the preset's document, before an event's overrides

    def suits(self, game_key: str) -> bool:
        """Whether an event of the catalog's game ``game_key`` may be set up from this preset."""
        return presets.suits(self.name, game_key)

    @property
    def offered(self) -> dict[str, str]:
        """The settings the preset leaves unset that the new event form offers blank, by kind."""
        return presets.offered(self.name)

    @property
    def first_game(self) -> str | None:
        """The game the new event form offers first (``None``: any game, the catalog's order)."""
        return presets.first_game(self.name)


def list_presets() -> list[PresetView]:
    """Every preset by name, ``generic`` first."""
    names = sorted(presets.PRESETS, key=lambda n: (n != "generic", n))
    return [PresetView(n, presets.resolve(n, None)) for n in names]


def get_preset(name: str) -> PresetView:
    """One preset (an unknown name is the InvalidInput the creation of an event gives)."""
    return PresetView(name, presets.resolve(name, None))
