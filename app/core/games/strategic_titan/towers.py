"""Strategic Titan, section 5: Towers (strategic-titan.md 5.1-5.3).

A ``teleport`` needs the turn's number to be 6 and a Tower as destination (5.1) and is a Tower stop;
``stop`` is a Tower stop, never on a "pass" turn (4.7). No player stops in the same Tower twice in a
row; the starting Tower counts (5.3). A teleport that is the Titan legion's first move forbids
recruiting a Warlock in that turn (5.2).
"""

from __future__ import annotations

from app.core.games.strategic_titan.keeper import Broken, Keeper
from app.core.games.strategic_titan.state import PlayerState, log
from app.core.games.strategic_titan.vocabulary import TOWERS, Event


def on_teleport(k: Keeper, ev: Event) -> None:
    i = ev.f["player"]
    p = k.need_turn(i, "a teleport")
    mv = p.movements[-1]
    if mv.number != 6:
        raise Broken("5.1", f"a teleport needs a movement number of 6; {p.name} announced {mv.number}")
    if ev.f["to"] not in TOWERS:
        raise Broken("5.1", f"a Titan legion teleports only to a Tower, not to hex {ev.f['to']}")
    visit(k, p, ev.f["to"], ev, "5.1", "teleport")
    first = ev.f.get("first_move", mv.turn == 1)
    if first:
        k.state.first_teleport_tower = ev.f["to"]


def on_stop(k: Keeper, ev: Event) -> None:
    p = k.need_turn(ev.f["player"], "a Tower stop")
    if p.movements[-1].number == "pass":
        raise Broken("4.7", f"{p.name} passed this turn; no legion of his moves")
    visit(k, p, ev.f["tower"], ev, "5.3", "stop")


def visit(k: Keeper, p: PlayerState, tower: int, ev: Event, rule: str, how: str) -> None:
    if p.towers and p.towers[-1] == tower:
        raise Broken("5.3", f"{p.name} may not stop in Tower {tower} twice in a row")
    p.towers.append(tower)
    k.state.turn_visits += 1
    log(p, ev.index, rule, "towers", None, tower, f"{how} in Tower {tower}")


def check_warlock(k: Keeper, p: PlayerState, i: int, creature: str, tower: int | None) -> None:
    """5.2: no Warlock recruited in the turn whose first move was a teleport (in that Tower, if named)."""
    s = k.state
    if (
        creature == "Warlock"
        and s.active == i
        and s.first_teleport_tower is not None
        and tower in (None, s.first_teleport_tower)
    ):
        raise Broken(
            "5.2", f"{p.name}'s Titan legion's first move was a teleport; it may not recruit a Warlock"
        )
