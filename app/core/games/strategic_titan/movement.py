"""Strategic Titan, section 4: movement numbers (strategic-titan.md 4.1-4.8; turn order, OT "3.2").

A ``movement`` announces the turn's number, in ``order`` among players still in (3.2): not the
number of either of the player's last two turns (4.2; a "pass" is a turn, so after 3, 4, pass a 3
is legal and a 4 is not; a retracted number no longer counts), a "pass" only with a single legion
on the board (4.7), and no 1 after the first turn with a legion in the centre unless it is blocked
(4.8). ``recombine`` (4.5) takes a legion off the board.
"""

from __future__ import annotations

from app.core.games.strategic_titan.keeper import Broken, Keeper
from app.core.games.strategic_titan.state import Movement, PlayerState, log
from app.core.games.strategic_titan.vocabulary import Event


def on_movement(k: Keeper, ev: Event) -> None:
    s = k.state
    i = ev.f["player"]
    p = k.need_alive(i)
    due = s.due()
    if due != i:
        raise Broken(
            "3.2",
            f"it is {k.name(due) if due is not None else 'nobody'}'s turn to announce a number, not {p.name}'s",
        )
    centre = ev.f.get("centre", p.legions_in_centre)
    if centre > p.legions_on_board:
        raise Broken("record", f"{p.name} has only {p.legions_on_board} legions, not {centre} in the centre")
    retried = s.active == i and not s.number_recorded
    turn = p.turns() + 1
    check_number(p, ev.f["number"], ev, turn, exclude_last=False)
    p.legions_in_centre = centre
    p.movements.append(Movement(turn=turn, number=ev.f["number"], index=ev.index))
    rule = "4.7" if ev.f["number"] == "pass" else "4.21"
    log(p, ev.index, rule, "movement", None, ev.f["number"], f"turn {turn} movement number recorded")
    if not retried:
        s.encountered = False
    s.first_teleport_tower = None
    s.turn_visits = 0
    s.active, s.number_recorded = i, True


def check_number(p: PlayerState, number: int | str, ev: Event, turn: int, exclude_last: bool) -> None:
    """Whether ``number`` may be announced in the player's ``turn`` (4.2, 4.7, 4.8); a correction
    (7.21) checks its new number without the one it replaces (``exclude_last``)."""
    if number == "pass":
        if p.legions_on_board != 1:
            raise Broken(
                "4.7",
                f"{p.name} may pass only when his one legion holds the Titan; he has {p.legions_on_board} legions",
            )
        return
    turns = p.turn_numbers()
    if exclude_last:
        turns = turns[:-1]  # a correction replaces the last turn's number
    if number in turns[-2:]:
        last = ", ".join(str(t) for t in turns[-2:])
        raise Broken("4.2", f"{number} was used by {p.name} in one of his last two turns ({last})")
    centre = ev.f.get("centre", p.legions_in_centre)
    if number == 1 and turn > 1 and centre > 0 and not ev.f.get("centre_blocked", False):
        raise Broken("4.8", f"{p.name} has a legion in the centre and may not choose 1 after the first turn")


def on_recombine(k: Keeper, ev: Event) -> None:
    p = k.need_alive(ev.f["player"])
    if p.legions_on_board <= 1:
        raise Broken("4.5", f"{p.name} has a single legion; nothing recombines")
    p.legions_on_board -= 1
    log(p, ev.index, "4.5", "legions_on_board", -1, p.legions_on_board, "split legions recombined")
