"""Strategic Titan, section 8: resurrection (strategic-titan.md 8.1-8.6).

``titan_killed`` follows the encounter its Titan died in (or another titan_killed of it), for a
player who fought there (8.1: "killed in battle"). When a player's last Titan dies holding 10 or
more mulligans he is resurrected (8.1): he keeps his mulligans and gains 6 (8.2), keeps markers and points (8.5, 8.6), and has one
legion, in the Tower the event names (required then; the placement is a Tower visit, 5.3, but is
not limited). Otherwise he is out of the game; players whose Titans die in the same encounter share
a place, and the game is finished when at most one player remains. With Double/Triple Titan (9.3)
a player is out only when the last Titan dies. ``out_of_legions``: a player left with no legion
on the board is out from the next event that is not a titan_killed of that battle.
"""

from __future__ import annotations

from app.core.games.strategic_titan.keeper import Broken, Keeper
from app.core.games.strategic_titan.state import log
from app.core.games.strategic_titan.vocabulary import Event


def on_titan_killed(k: Keeper, ev: Event) -> None:
    s = k.state
    i = ev.f["player"]
    p = k.need_alive(i)
    if s.last_battle is None or not chained(k, ev.index):
        raise Broken("8.1", f"{p.name}'s Titan is killed in battle: a titan_killed follows its encounter")
    if i not in s.last_battle:
        a, d = s.last_battle
        raise Broken("8.1", f"{p.name} did not fight in the last battle ({k.name(a)} on {k.name(d)})")
    p.titans -= 1
    log(p, ev.index, "8.1", "titans", -1, p.titans, "Titan killed in battle")
    if p.titans > 0:
        return
    if p.mulligans >= 10:
        tower = ev.f.get("tower")
        if tower is None:
            raise Broken("8.2", f"{p.name} is resurrected and must place his new legion in a Tower; name it")
        p.titans = 1
        p.resurrected += 1
        p.legions_on_board = 1
        p.legions_in_centre = 0
        p.mulligans += 6
        log(
            p,
            ev.index,
            "8.1",
            "resurrected",
            1,
            p.resurrected,
            f"resurrected by the gods with {p.mulligans - 6} mulligans",
        )
        log(
            p,
            ev.index,
            "8.2",
            "legions_on_board",
            None,
            1,
            "other legions cleared; a new Titan legion placed",
        )
        log(p, ev.index, "8.2", "mulligans", 6, p.mulligans, "six new mulligans")
        p.towers.append(tower)
        log(p, ev.index, "8.2", "towers", None, tower, f"new legion placed in Tower {tower}")
        return
    if "tower" in ev.f:
        raise Broken("8.1", f"{p.name} holds {p.mulligans} mulligans, fewer than 10: no resurrection")
    p.alive = False
    p.eliminated_at = ev.index
    p.legions_on_board = 0
    p.legions_in_centre = 0
    log(
        p,
        ev.index,
        "8.1",
        "alive",
        None,
        False,
        f"out of the game with {p.mulligans} mulligans (10 resurrect)",
    )
    s.elimination_groups[i] = (
        s.last_encounter if s.last_encounter is not None and chained(k, ev.index) else ev.index
    )
    if len(s.alive()) <= 1:
        s.finished, s.ended_by = True, "elimination"


def out_of_legions(k: Keeper, ev: Event) -> None:
    """Players left with no legion on the board have lost their Titan's legion: they are out (OT,
    "3.2"), as of the encounter that took it; the game is finished when at most one remains."""
    s = k.state
    for i, p in enumerate(s.players):
        if p.alive and p.legions_on_board == 0:
            at = s.last_encounter if s.last_encounter is not None else ev.index
            p.alive = False
            p.eliminated_at = at
            p.legions_in_centre = 0
            log(p, ev.index, "3.2", "alive", None, False, "no legion left on the board: out of the game")
            s.elimination_groups[i] = at
    if len(s.alive()) <= 1 and not s.finished:
        s.finished, s.ended_by = True, "elimination"


def chained(k: Keeper, index: int) -> bool:
    """Whether only titan_killed events lie between the last encounter and this one."""
    start = (k.state.last_encounter or 0) + 1
    return all(t == "titan_killed" for t in k.types[start:index])
