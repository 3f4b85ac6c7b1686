"""Strategic Titan, section 9: the starting options, the start event, the end event (strategic-titan.md).

The record opens with ``start``: each player's starting Tower, distinct, the first Tower visit (5.3),
and options merged with the replay's (a key given twice with different values is malformed). Every
player starts with 6 mulligans (7.1) and 5 legion markers (6.1), fewer (9.4) or more (9.5) by
option; a Double or Triple Titan start gives two Titans (9.3). ``start`` standard | warlock |
variety (9.1, 9.2) is kept with the options and not otherwise checked. ``end`` calls the game.
"""

from __future__ import annotations

from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.games.strategic_titan.keeper import Keeper
from app.core.games.strategic_titan.state import PlayerState, log
from app.core.games.strategic_titan.vocabulary import START_MULLIGANS, Event


def new_players(
    players: list[str], options: dict[str, Any], towers: list[int] | None, index: int | None
) -> list[PlayerState]:
    """The players as the game starts (7.1, 6.1/9.4/9.5, 9.3); ``towers`` once the start names them (5.3)."""
    markers = options.get("legion_markers", 5)
    titans = 2 if options.get("titans") in ("double", "triple") else 1
    marker_rule = "6.1" if markers == 5 else ("9.4" if markers < 5 else "9.5")
    out = []
    for n, name in enumerate(players):
        p = PlayerState(name=name, legion_markers=markers, titans=titans)
        log(p, index, "7.1", "mulligans", None, START_MULLIGANS, "starting mulligans")
        log(p, index, marker_rule, "legion_markers", None, markers, "starting legion markers")
        if titans == 2:
            log(p, index, "9.3", "titans", None, 2, f"{options.get('titans')} Titan start")
        if towers is not None:
            p.towers.append(towers[n])
            log(p, index, "5.3", "towers", None, towers[n], "starting Tower counts as the first visit")
        out.append(p)
    return out


def on_start(k: Keeper, ev: Event) -> None:
    extra = ev.f.get("options", {})
    clash = [key for key in extra if key in k.base_options and k.base_options[key] != extra[key]]
    if clash:
        raise InvalidInput(
            f"events.0.options: {clash[0]!r} differs from the game's options",
            [Problem(("events", 0, "options"), f"{clash[0]!r} differs from the game's options")],
        )
    options = {**k.base_options, **extra}
    k.state.options = options
    k.state.players = new_players(k.names, options, ev.f["towers"], ev.index)
    k.state.order = ev.f.get("order", list(range(len(k.names))))
    k.state.started = True


def on_end(k: Keeper, ev: Event) -> None:
    k.state.finished, k.state.ended_by = True, "end"
