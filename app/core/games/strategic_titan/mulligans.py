"""Strategic Titan, section 7: spending mulligans (strategic-titan.md 7.2-7.9, 7.41).

``retract`` takes back the turn's movement for one mulligan per stack, before any attack of the
turn, undoing its Tower stops (7.2; at most as many stacks as the player has legions on the board:
more is a 7.2 violation and charges nothing), or a split for one (7.23). ``reroll`` — only inside a combat,
by a player in it (7.7) — spends the temporary Titan mulligan first (7.6), then one per re-roll
(7.5). ``mulligan`` names the reason of a spend: retraction (7.2), correction (7.21, one; the new
number checked as in section 4), split-retraction (7.23, one), forgotten-split (7.24, one), reroll
(7.5, in a combat, 7.7), battleland (7.8: the defender's, in a combat), recruit (7.9). ``recruit``
with mulligans — in the player's own turn — pays exactly the table's price for a non-basic
creature, "all" being every mulligan held, at least 7 (7.9); any recruit is checked against 5.2.
``points`` scores, with the 7.41 loss.
"""

from __future__ import annotations

from app.core.games.strategic_titan.keeper import Broken, Keeper
from app.core.games.strategic_titan.legions import on_split
from app.core.games.strategic_titan.movement import check_number
from app.core.games.strategic_titan.state import PlayerState, log
from app.core.games.strategic_titan.towers import check_warlock
from app.core.games.strategic_titan.vocabulary import BASIC, RECRUIT_COST, SPEND_RULES, Event


def on_retract(k: Keeper, ev: Event) -> None:
    if ev.f["what"] == "movement":
        retract_movement(k, ev, ev.f["player"], ev.f.get("stacks", 1))
    else:
        if "stacks" in ev.f:
            raise Broken("7.23", "a split retraction costs one mulligan; it has no stacks")
        retract_split(k, ev, ev.f["player"])


def retract_movement(k: Keeper, ev: Event, i: int, stacks: int) -> None:
    s = k.state
    p = k.need_turn(i, "a retraction")
    if s.encountered:
        raise Broken("7.2", f"{p.name} has met an enemy this turn; the movement can no longer be retracted")
    if stacks > p.legions_on_board:
        raise Broken(
            "7.2",
            f"{p.name} has {p.legions_on_board} legion{'s' if p.legions_on_board != 1 else ''} on the board; "
            f"{stacks} stacks cannot have moved",
        )
    k.spend(p, ev, stacks, "7.2", f"'Oops!' retraction of {stacks} moved stack{'s' if stacks != 1 else ''}")
    p.movements[-1].retracted = True
    log(p, ev.index, "7.2", "movement", None, None, f"number {p.movements[-1].number} retracted")
    for _ in range(s.turn_visits):  # the stacks go back: their Tower stops did not happen
        undone = p.towers.pop()
        log(p, ev.index, "7.2", "towers", None, undone, f"stop in Tower {undone} retracted")
    s.turn_visits = 0
    s.first_teleport_tower = None
    s.number_recorded = False


def retract_split(k: Keeper, ev: Event, i: int) -> None:
    p = k.need_turn(i, "a split retraction")
    if p.legions_on_board <= 1:
        raise Broken("7.23", f"{p.name} has a single legion; there is no split to retract")
    k.spend(p, ev, 1, "7.23", "mulligan burnt to retract a split")
    p.legions_on_board -= 1
    log(p, ev.index, "7.23", "legions_on_board", -1, p.legions_on_board, "split retracted")


def in_combat(k: Keeper, i: int, rule: str, what: str, defender_only: bool = False) -> None:
    """``what`` happens inside an open combat, by a player in it (the defender, when ``defender_only``)."""
    c = k.state.combat
    name = k.name(i)
    if c is None:
        raise Broken(rule, f"{what} belongs to a combat, and no attack is open ({name})")
    if defender_only and i != c.defender:
        raise Broken(rule, f"{what} is the defender's, {k.name(c.defender)}'s, not {name}'s")
    if i not in (c.attacker, c.defender):
        raise Broken(
            rule, f"{name} is not in the combat of {k.name(c.attacker)} on {k.name(c.defender)}: no {what}"
        )


def on_reroll(k: Keeper, ev: Event) -> None:
    p = k.need_alive(ev.f["player"])
    in_combat(k, ev.f["player"], "7.7", "a re-roll")
    n = ev.f.get("count", 1)
    if ev.f.get("titan") and p.temporary_mulligan:
        p.temporary_mulligan = 0
        log(p, ev.index, "7.6", "temporary_mulligan", -1, 0, "temporary mulligan used by the Titan")
        n -= 1
    if n:
        k.spend(p, ev, n, "7.5", f"{n} re-roll{'s' if n != 1 else ''} demanded (7.7)")


def on_mulligan(k: Keeper, ev: Event) -> None:
    i, n, reason = ev.f["player"], ev.f["count"], ev.f["reason"]
    p = k.need_alive(i)
    rule = SPEND_RULES[reason]
    if "number" in ev.f and reason != "correction":
        raise Broken(rule, "only a correction (7.21) states a new number")
    if "creature" in ev.f and reason != "recruit":
        raise Broken(rule, "only a recruit (7.9) names a creature")
    if reason in ("correction", "split-retraction", "forgotten-split") and n != 1:
        raise Broken(rule, f"a {reason} costs exactly one mulligan, not {n}")
    if reason == "retraction":
        retract_movement(k, ev, i, n)
    elif reason == "split-retraction":
        retract_split(k, ev, i)
    elif reason == "forgotten-split":
        on_split(k, Event(ev.index, "split", {"player": i, "forgotten": True}))
    elif reason == "correction":
        correct(k, ev, p)
    elif reason == "recruit":
        if "creature" not in ev.f:
            raise Broken("7.9", "a recruit paid with mulligans names its creature")
        recruit(k, ev, i, ev.f["creature"], n)
    elif reason == "reroll":
        in_combat(k, i, "7.7", "a re-roll")
        k.spend(p, ev, n, "7.5", f"{n} re-roll{'s' if n != 1 else ''} demanded")
    else:
        in_combat(k, i, "7.8", "the battleland's re-roll", defender_only=True)
        k.spend(p, ev, n, "7.8", "battleland re-roll")


def correct(k: Keeper, ev: Event, p: PlayerState) -> None:
    k.need_turn(ev.f["player"], "a correction")
    mv = p.movements[-1]
    if "number" in ev.f:
        check_number(p, ev.f["number"], ev, mv.turn, exclude_last=True)
    k.spend(p, ev, 1, "7.21", "mulligan burnt to correct the announced number")
    if "number" in ev.f:
        mv.corrected_from, mv.number = mv.number, ev.f["number"]
        log(p, ev.index, "7.21", "movement", None, mv.number, f"number corrected from {mv.corrected_from}")


def on_recruit(k: Keeper, ev: Event) -> None:
    recruit(k, ev, ev.f["player"], ev.f["creature"], -1 if ev.f.get("mulligans") else None)


def recruit(k: Keeper, ev: Event, i: int, creature: str, paid: int | None) -> None:
    p = k.need_alive(i)
    check_warlock(k, p, i, creature, ev.f.get("tower"))
    if paid is None:
        log(p, ev.index, "3.2", "recruits", None, creature, f"recruited a {creature}")
        return
    if not (k.state.active == i and k.state.number_recorded):
        raise Broken("7.9", f"{p.name} buys a recruit with mulligans upon entering a Tower, in his own turn")
    if creature in BASIC:
        raise Broken("7.9", f"a {creature} is a basic creature; mulligans buy only higher-tier creatures")
    cost = RECRUIT_COST[creature]
    if cost is None:
        if p.mulligans < 7:
            raise Broken("7.9", f"a {creature} costs all mulligans, at least 7; {p.name} holds {p.mulligans}")
        cost = p.mulligans
    if paid not in (-1, cost):
        raise Broken("7.9", f"a {creature} costs {cost} mulligans, not {paid}")
    k.spend(p, ev, cost, "7.9", f"recruited a {creature} with mulligans")


def on_points(k: Keeper, ev: Event) -> None:
    i = ev.f["player"]
    k.score(k.need_alive(i), ev, ev.f["points"], i)
