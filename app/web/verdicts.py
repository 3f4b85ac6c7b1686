"""A game log's verdict as the console's verdict page shows it before it is recorded (docs/web.md
"The formats' own actions from the console"): a Strategic Titan verdict in words — who won and why,
and each player's standing at the end — read from the replayed record the adjudicator answers
(strategic-titan.md; ``ReplayResult.to_dict``), no rule of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TitanPlayer:
    """One player of a Strategic Titan verdict, at the end of the record."""

    name: str
    place: int
    points: int
    alive: bool
    eliminated_at: int | None
    resurrected: int
    legion_markers: int
    legions_on_board: int
    mulligans: int
    numbers: list[int | str]  # every turn's movement number ("pass" too), retracted ones left out


@dataclass(frozen=True)
class TitanVerdict:
    ended_by: str | None  # "end" (the players ended it) or "elimination" (one player left)
    events: int
    players: list[TitanPlayer]  # by place, then seat

    @property
    def first(self) -> list[TitanPlayer]:
        return [p for p in self.players if p.place == 1]

    def outcome(self, t: Callable[..., str]) -> str:
        """Who won, and why, in the page's words."""
        first = self.first
        names = ", ".join(p.name for p in first)
        if len(first) == len(self.players):
            return t("st_draw", points=first[0].points)
        if len(first) > 1:
            return t("st_shared", names=names, points=first[0].points)
        winner = first[0]
        standing = [p for p in self.players if p.alive]
        if self.ended_by == "elimination" or len(standing) == 1:
            return t("st_win_last", name=winner.name)
        runner = next(p for p in self.players if p is not winner and p.alive)
        return t(
            "st_win_points", name=winner.name, points=winner.points, other=runner.name, theirs=runner.points
        )

    def status(self, player: TitanPlayer, t: Callable[..., str]) -> str:
        """Whether the player was still in the game at its end, and their resurrections."""
        said = (
            t("st_standing")
            if player.alive
            else t("st_eliminated_at", n=player.eliminated_at)
            if player.eliminated_at is not None
            else t("st_eliminated")
        )
        return said + (t("st_resurrected", n=player.resurrected) if player.resurrected else "")


def strategic_titan(details: dict[str, Any]) -> TitanVerdict | None:
    """The verdict's facts, from the adjudicator's answer (``None`` when it is not one: the raw
    details are then shown as they are)."""
    state = details.get("state") if isinstance(details, dict) else None
    places = (state or {}).get("places")
    if not isinstance(state, dict) or not isinstance(places, list) or not state.get("players"):
        return None
    players = [
        TitanPlayer(
            name=str(p["name"]),
            place=int(places[i]),
            points=int(p.get("points", 0)),
            alive=bool(p.get("alive", True)),
            eliminated_at=p.get("eliminated_at"),
            resurrected=int(p.get("resurrected", 0)),
            legion_markers=int(p.get("legion_markers", 0)),
            legions_on_board=int(p.get("legions_on_board", 0)),
            mulligans=int(p.get("mulligans", 0)),
            numbers=list(p.get("movement_numbers", [])),
        )
        for i, p in enumerate(state["players"])
    ]
    ordered = sorted(players, key=lambda p: p.place)  # stable: seat order within a place
    return TitanVerdict(state.get("ended_by"), int(state.get("events", 0)), ordered)
