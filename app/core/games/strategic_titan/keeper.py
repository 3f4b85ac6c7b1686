"""Strategic Titan: what every event handler works through (strategic-titan.md, sections 3.2, 7).

``Keeper`` holds the game state being replayed and the checks all handlers share: a player still in
the game (rule "record"), the turn an act belongs to (OT, rule "3.2"), the players to compare with
(7.3, 7.4, 7.41). It also keeps the mulligan ledger's common moves: a spend, never more than held
(under the spend's own rule, 7.2-7.9); a loss, nothing when none are left; points scored, with a
loss per 100-point mark passed, counted by arithmetic (7.41). A handler that finds a rule broken
raises ``Broken``.
"""

from __future__ import annotations

from typing import Any

from app.core.games.strategic_titan.state import GameState, PlayerState, log
from app.core.games.strategic_titan.vocabulary import Event


class Broken(Exception):
    """The event breaks ``rule``; the replay stops there and reports ``message``."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


class Keeper:
    """The state of one replay, with the record's players, options and event types."""

    def __init__(
        self, names: list[str], options: dict[str, Any], types: list[str], players: list[PlayerState]
    ) -> None:
        self.names = names
        self.types = types  # every event's type, to tell which Titans died in the same encounter
        self.base_options = options
        self.state = GameState(players=players, options=dict(options))
        self.state.order = list(range(len(names)))

    # --- who may act ---------------------------------------------------------------------------
    def name(self, i: int) -> str:
        return self.state.players[i].name

    def need_alive(self, i: int) -> PlayerState:
        p = self.state.players[i]
        if not p.alive:
            raise Broken("record", f"{p.name} is out of the game")
        return p

    def need_turn(self, i: int, what: str) -> PlayerState:
        """Player ``i``, if it is his turn and his number is recorded (3.2)."""
        p = self.need_alive(i)
        if self.state.active == i and self.state.number_recorded:
            return p
        if self.state.active == i or self.state.due() == i:
            raise Broken("3.2", f"{p.name} must announce his movement number before {what}")
        raise Broken("3.2", f"{what} belongs to the turn of the player moving, not to {p.name}")

    def others(self, i: int) -> list[PlayerState]:
        """The players other than ``i`` still in the game: the ones 7.3, 7.4 and 7.41 compare with."""
        return [q for j, q in enumerate(self.state.players) if j != i and q.alive]

    # --- the mulligan ledger -------------------------------------------------------------------
    def spend(self, p: PlayerState, ev: Event, n: int, rule: str, note: str) -> None:
        if n > p.mulligans:
            raise Broken(rule, f"{p.name} spends {n} mulligan{'s' if n != 1 else ''} but holds {p.mulligans}")
        p.mulligans -= n
        log(p, ev.index, rule, "mulligans", -n, p.mulligans, note)

    def lose_mulligan(self, p: PlayerState, ev: Event, rule: str, note: str) -> None:
        if p.mulligans == 0:
            log(p, ev.index, rule, "mulligans", 0, 0, note + " (none left to lose)")
            return
        p.mulligans -= 1
        log(p, ev.index, rule, "mulligans", -1, p.mulligans, note)

    def score(self, p: PlayerState, ev: Event, n: int, i: int) -> None:
        """Points scored; a mulligan lost per 100-point mark passed — ⌊new/100⌋ − ⌊old/100⌋ of
        them, no more than held — unless the player then has the fewest points (7.41)."""
        before = p.points
        p.points += n
        log(p, ev.index, "3.2", "points", n, p.points, "points scored")
        marks = p.points // 100 - before // 100
        if marks <= 0:
            return
        passed = "100-point mark passed" if marks == 1 else f"{marks} 100-point marks passed"
        others = self.others(i)
        if others and p.points <= min(q.points for q in others):
            log(p, ev.index, "7.41", "mulligans", 0, p.mulligans, f"{passed}; fewest points: no loss")
            return
        lost = min(marks, p.mulligans)
        p.mulligans -= lost
        left = "" if lost == marks else f" ({lost} lost: none left to lose)"
        log(p, ev.index, "7.41", "mulligans", -lost, p.mulligans, passed + left)
