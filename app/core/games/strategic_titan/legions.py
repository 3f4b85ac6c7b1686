"""Strategic Titan, section 6: legions and legion markers (strategic-titan.md 6.1-6.8, with 7.3, 7.4, 7.6).

A ``split`` adds a legion: free in the player's turn before his number (OT, "3.2"), else a forgotten
split for one mulligan (7.24); legions on the board never exceed the markers held (6.2). An
``attack`` opens a combat (a Titan attacked gives the defender a temporary mulligan, 7.6) that its
``encounter`` closes: the loser's legion leaves the board (6.5); a marker is won for a destroyed
legion (6.3), two surrenders (6.4), a defence (6.6) or two forfeited attacks (6.7), never past 12
(6.2), each costing a mulligan unless the laggard (7.4); a marker removed from the board gains one
unless still the most legions (7.3); points scored follow 7.41.
"""

from __future__ import annotations

from app.core.games.strategic_titan.keeper import Broken, Keeper
from app.core.games.strategic_titan.state import Combat, PlayerState, log
from app.core.games.strategic_titan.vocabulary import MAX_MARKERS, Event


def on_split(k: Keeper, ev: Event) -> None:
    s = k.state
    i = ev.f["player"]
    p = k.need_alive(i)
    recorded = s.active == i and s.number_recorded
    if ev.f.get("forgotten"):
        if not recorded:
            raise Broken(
                "7.24",
                f"{p.name} has not recorded a number this turn; a split now is free, not forgotten",
            )
        k.spend(p, ev, 1, "7.24", "mulligan burnt to make a forgotten split")
        add_legion(p, ev, "7.24", "forgotten split")
        return
    if recorded:
        raise Broken(
            "7.24",
            f"{p.name} already recorded his number; a split now costs a mulligan (forgotten split)",
        )
    if s.due() != i:
        raise Broken("3.2", f"{p.name} splits only in his own turn, before announcing his number")
    add_legion(p, ev, "3.2", "split")


def add_legion(p: PlayerState, ev: Event, rule: str, note: str) -> None:
    """One more legion on the board, never more than the markers held (6.2)."""
    if p.legions_on_board >= p.legion_markers:
        raise Broken(
            "6.2",
            f"{p.name} holds {p.legion_markers} legion markers, all on the board; no legion can be added",
        )
    p.legions_on_board += 1
    log(p, ev.index, rule, "legions_on_board", 1, p.legions_on_board, note)


def on_attack(k: Keeper, ev: Event) -> None:
    k.state.combat = open_combat(k, ev)


def open_combat(k: Keeper, ev: Event) -> Combat:
    """The attack, in the attacker's turn; a Titan attacked gives the defender one mulligan (7.6)."""
    s = k.state
    a, d = ev.f["attacker"], ev.f["defender"]
    pa = k.need_turn(a, "an attack")
    pd = k.need_alive(d)
    for q in (pa, pd):
        if q.legions_on_board < 1:
            raise Broken("record", f"{q.name} has no legion on the board")
    s.encountered = True
    c = Combat(a, d, bool(ev.f.get("titan")), ev.index)
    if c.titan:
        pd.temporary_mulligan = 1
        log(pd, ev.index, "7.6", "temporary_mulligan", 1, 1, "Titan legion attacked: temporary mulligan")
    return c


def on_encounter(k: Keeper, ev: Event) -> None:
    s = k.state
    a, d, outcome = ev.f["attacker"], ev.f["defender"], ev.f["outcome"]
    if s.combat is not None:
        if (s.combat.attacker, s.combat.defender) != (a, d):
            raise Broken(
                "record",
                f"the open attack is {k.name(s.combat.attacker)} on {k.name(s.combat.defender)}",
            )
        combat = s.combat
        if ev.f.get("titan") and not combat.titan:
            raise Broken("record", "the attack was recorded without the defending Titan")
    else:
        combat = open_combat(k, ev)
    pa, pd = s.players[a], s.players[d]
    # the board after the battle (6.5)
    losers = {
        "destroyed": [d],
        "surrendered": [d],
        "mutual": [a, d],
        "defended": [a],
        "time-out": [a],
        "forfeited": [a],
    }[outcome]
    for j in losers:
        remove_legion(s.players[j], ev)
    for j, n in ev.f.get("legions", {}).items():
        q = k.need_alive(j)
        if n > q.legion_markers:
            raise Broken(
                "6.2", f"{q.name} holds {q.legion_markers} legion markers and cannot have {n} legions"
            )
        if n != q.legions_on_board:
            log(
                q,
                ev.index,
                "6.5",
                "legions_on_board",
                n - q.legions_on_board,
                n,
                "legions on the board after the battle",
            )
            q.legions_on_board = n
            q.legions_in_centre = min(q.legions_in_centre, n)
    # legion markers (6.3, 6.4, 6.6, 6.7) with their mulligan loss (7.4)
    if outcome == "destroyed":
        acquire(k, pa, ev, "6.3", f"destroyed a legion of {pd.name}", a)
    elif outcome == "surrendered":
        pa.surrenders_received += 1
        if pa.surrenders_received % 2 == 0:
            acquire(k, pa, ev, "6.4", "second enemy legion surrendered", a)
        else:
            log(
                pa,
                ev.index,
                "6.4",
                "surrenders",
                1,
                pa.surrenders_received,
                "one surrender; a marker at two",
            )
    elif outcome in ("defended", "time-out"):
        acquire(k, pd, ev, "6.6", f"successful defence ({outcome})", d)
    elif outcome == "forfeited":
        pd.forfeit_defences += 1
        if pd.forfeit_defences % 2 == 0:
            acquire(k, pd, ev, "6.7", "second attack forfeited", d)
        else:
            log(pd, ev.index, "6.7", "forfeits", 1, pd.forfeit_defences, "one forfeit; a marker at two")
    # mulligans for markers removed from the board (7.3)
    for j in losers:
        q = s.players[j]
        others = k.others(j)
        if others and q.legions_on_board < max(o.legions_on_board for o in others):
            q.mulligans += 1
            log(q, ev.index, "7.3", "mulligans", 1, q.mulligans, "legion marker removed from the board")
        else:
            log(
                q,
                ev.index,
                "7.3",
                "mulligans",
                0,
                q.mulligans,
                "marker removed, but still most legions: no gain",
            )
    # the temporary Titan mulligan ends with the combat (7.6)
    if combat.titan and pd.temporary_mulligan:
        pd.temporary_mulligan = 0
        log(pd, ev.index, "7.6", "temporary_mulligan", -1, 0, "temporary mulligan unused: lost")
    s.combat = None
    s.last_encounter = ev.index
    s.last_battle = (a, d)
    for j, n in ev.f.get("points", {}).items():
        k.score(s.players[j], ev, n, j)


def remove_legion(p: PlayerState, ev: Event) -> None:
    """The loser's legion leaves the board; its marker returns to him (6.5)."""
    if p.legions_on_board < 1:
        raise Broken("record", f"{p.name} has no legion on the board to lose")
    p.legions_on_board -= 1
    p.legions_in_centre = min(p.legions_in_centre, p.legions_on_board)
    log(p, ev.index, "6.5", "legions_on_board", -1, p.legions_on_board, "legion lost; its marker returns")


def acquire(k: Keeper, p: PlayerState, ev: Event, rule: str, note: str, i: int) -> None:
    """A legion marker won under ``rule``, none past 12 (6.2), and its mulligan loss unless the
    laggard (7.4): the fewest legions on the board, or tied for it holding no more markers."""
    if p.legion_markers >= MAX_MARKERS:
        log(
            p,
            ev.index,
            "6.2",
            "legion_markers",
            0,
            p.legion_markers,
            f"{note}: already at 12, nothing acquired",
        )
        return
    p.legion_markers += 1
    log(p, ev.index, rule, "legion_markers", 1, p.legion_markers, note)
    others = k.others(i)
    if others:
        fewest = min(q.legions_on_board for q in others)
        least_markers = min(q.legion_markers for q in others)
        if p.legions_on_board < fewest:
            log(
                p,
                ev.index,
                "7.4",
                "mulligans",
                0,
                p.mulligans,
                "marker acquired; fewest legions: no loss",
            )
            return
        if p.legions_on_board == fewest and p.legion_markers <= least_markers:
            log(p, ev.index, "7.4", "mulligans", 0, p.mulligans, "marker acquired; tied for last: no loss")
            return
    k.lose_mulligan(p, ev, "7.4", "legion marker acquired")
