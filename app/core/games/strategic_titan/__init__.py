"""Strategic Titan: the game record keeper (spec: strategic-titan.md; seed 002, sections 4-9).

A game is an append-only list of events. ``replay`` applies them one by one, keeps every
player's state (movement numbers, Towers visited, legion markers, legions on the board,
mulligans, points, Titans) and a per-player ledger naming the rule behind each change, and
stops at the first event that breaks a rule, reporting ``{index, rule, message}`` with the state
as it was before that event. A malformed event (unknown type, missing field, wrong value) is an
``InvalidInput`` with ``loc = ("events", index, field)``.

Rules applied: 4.1-4.8 (movement numbers, "pass", the centre), 5.1-5.3 (teleport, Warlocks,
Towers), 6.1-6.8 (legion markers and the 12 cap), 7.1-7.9 (every mulligan gain, loss and spend,
the temporary Titan mulligan), 8.1-8.6 (resurrection), 9.1-9.5 (starting options).

Rulings (the spec's, and ours where it is silent):
- The record opens with a ``start`` event naming each player's starting Tower (distinct, one of
  100-600) — the first Tower visit (5.3); its ``options`` merge with the replay's options (a key
  given twice with different values is malformed). Options: ``start`` standard | warlock (9.1) |
  variety (9.2); ``titans`` single | double | triple (9.3; double and triple give two Titans);
  ``legion_markers`` 1-12 (default 5; fewer is 9.4, more is 9.5); ``order`` of turns (default:
  the players' order). 9.11 (Warlocks only when recycled) is not checked: the record does not
  follow creature deaths.
- Turns follow ``order`` among players still in the game (OT, rule "3.2"); an attack, teleport,
  Tower stop or retraction belongs to the player whose turn it is, after their number is recorded.
- 4.2: the last two *numbers* count; a "pass" is not a number and is skipped; a retracted number
  (7.2) no longer counts; a corrected one (7.21) is replaced.
- 4.7: "pass" is allowed only while the player has exactly one legion on the board (it holds the
  Titan, or the player would be out). A pass turn may not stop in a Tower or teleport.
- 4.8: "the first turn" is the player's own first turn; the movement event says how many of the
  player's legions are in the centre (``centre``, kept until restated) and ``centre_blocked``.
- 5.1: a teleport needs the turn's number to be 6 and a destination that is a Tower; it is also a
  Tower stop for 5.3. 5.2: a teleport is the Titan legion's first move if ``first_move`` says so,
  by default when it happens on the player's first turn; a Warlock recruited in that turn (in that
  Tower, when the recruit names one) is rejected.
- 5.3: the visits are per player; a resurrection's placement (8.2) is a visit but is not limited.
- Splits (OT) are free in the player's own turn before the number is announced; after it, only as
  a forgotten split (7.24, one mulligan). ``recombine`` (4.5) takes a legion off the board.
- 6.2: legions on the board never exceed the markers held, and markers never exceed 12; an
  acquisition at 12 gives nothing and so costs no mulligan (7.4).
- 6.3/6.6: outcome ``destroyed`` = the defending legion died in combat and the attacker survived;
  ``mutual`` = both died (no marker for anyone); ``defended`` and ``time-out`` = the attacking legion
  is gone, the defender gains a marker; ``surrendered`` = the defender fled or conceded (6.4, one
  marker per two); ``forfeited`` = the attacker did not enter the battleland (6.7, one per two).
  The loser's legion leaves the board (6.5); an encounter's ``legions`` map, when given, states the
  listed players' legions on the board after the battle and is taken as the truth.
- 7.3/7.4/7.41 compare only players still in the game; "tied for last" in 7.4 means tied for the
  fewest legions on the board and holding no more total markers than any other player; counts are
  taken after the battle (and after the acquisition); a loss with no mulligan left loses nothing.
- 7.2: N stacks retracted cost N mulligans, only in the player's turn and before any attack of
  that turn; the number is withdrawn (re-announced next) and the turn's Tower stops are undone.
  7.21 (with ``number``: the corrected number, checked like any other), 7.23 and 7.24 cost exactly one.
- 7.41: one loss per 100-point mark passed, unless the player then has the fewest points (ties too).
- 7.6: an ``attack`` (or ``encounter``) with ``titan: true`` gives the defender one temporary
  mulligan; a ``reroll`` with ``titan: true`` uses it first; it is lost when the encounter closes.
- 7.9: the recruit must be a non-basic creature and costs exactly the table's price; "all" means
  every mulligan held, at least 7. Spending more than one holds is rejected under the spend's rule.
- 8.1: resurrection when the player's last Titan dies holding 10 or more mulligans (counting the
  7.3 gain of that battle); the player keeps the mulligans held and gains 6 (8.2), keeps markers
  and points (8.5, 8.6), and has one legion, in the Tower named by ``tower`` (required then).
  With Double/Triple Titan a player is out only when the last Titan dies.
- The game is finished when at most one player remains, or at an ``end`` event (the game called).
  Places: players still in, by points (ties share); then the eliminated, latest first; players
  whose Titans die in the same encounter share a place. Everyone sharing first is a draw.
- Not checked, because the record does not hold piece movement: which legions must move (4.3-4.6),
  7.22, 7.23's "no legal moves" proviso and 8.3's free fill-ins.
- Record-keeping mistakes that no section names (an attack left open, an event after the end, an
  eliminated player acting) are reported with rule "record".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.core.errors import InvalidInput, Problem, RuleViolation
from app.core.games.registry import Adjudication, SeatOutcome
from app.core.games.strategic_titan.state import (
    Combat,
    GameState,
    LedgerEntry,
    Movement,
    PlayerState,
    log,
)
from app.core.games.strategic_titan.vocabulary import (
    BASIC,
    CREATURES,
    EVENT_TYPES,
    MAX_MARKERS,
    OPTION_VALUES,
    OUTCOMES,
    RECRUIT_COST,
    SCHEMA,
    SPEND_RULES,
    START_MULLIGANS,
    TOWERS,
    Event,
    option_problems,
    parse_events,
    parse_players,
)

__all__ = [
    "BASIC",
    "CREATURES",
    "EVENT_TYPES",
    "MAX_MARKERS",
    "OPTION_VALUES",
    "OUTCOMES",
    "RECRUIT_COST",
    "SCHEMA",
    "SPEND_RULES",
    "START_MULLIGANS",
    "TOWERS",
    "Combat",
    "Event",
    "GameState",
    "LedgerEntry",
    "Movement",
    "PlayerState",
    "ReplayResult",
    "Violation",
    "adjudicate_match",
    "parse_events",
    "parse_players",
    "replay",
]


@dataclass(frozen=True)
class Violation:
    index: int
    rule: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "rule": self.rule, "message": self.message}


@dataclass
class ReplayResult:
    valid: bool
    state: GameState
    violation: Violation | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "state": self.state.to_dict(),
            "violation": self.violation.to_dict() if self.violation else None,
        }


class _Broken(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


# --- the replay --------------------------------------------------------------------------------
def _new_players(
    players: list[str], options: dict[str, Any], towers: list[int] | None, index: int | None
) -> list[PlayerState]:
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


class _Replay:
    def __init__(self, players: list[str], options: dict[str, Any], types: list[str]) -> None:
        self.names = players
        self.types = types  # every event's type, to tell which Titans died in the same encounter
        self.base_options = options
        self.s = GameState(players=_new_players(players, options, None, None), options=dict(options))
        self.s.order = list(range(len(players)))

    # helpers
    def name(self, i: int) -> str:
        return self.s.players[i].name

    def need_alive(self, i: int) -> PlayerState:
        p = self.s.players[i]
        if not p.alive:
            raise _Broken("record", f"{p.name} is out of the game")
        return p

    def need_turn(self, i: int, what: str) -> PlayerState:
        p = self.need_alive(i)
        if self.s.active == i and self.s.number_recorded:
            return p
        if self.s.active == i or self.s.due() == i:
            raise _Broken("3.2", f"{p.name} must announce his movement number before {what}")
        raise _Broken("3.2", f"{what} belongs to the turn of the player moving, not to {p.name}")

    def spend(self, p: PlayerState, ev: Event, n: int, rule: str, note: str) -> None:
        if n > p.mulligans:
            raise _Broken(
                rule, f"{p.name} spends {n} mulligan{'s' if n != 1 else ''} but holds {p.mulligans}"
            )
        p.mulligans -= n
        log(p, ev.index, rule, "mulligans", -n, p.mulligans, note)

    def lose_mulligan(self, p: PlayerState, ev: Event, rule: str, note: str) -> None:
        if p.mulligans == 0:
            log(p, ev.index, rule, "mulligans", 0, 0, note + " (none left to lose)")
            return
        p.mulligans -= 1
        log(p, ev.index, rule, "mulligans", -1, p.mulligans, note)

    def others(self, i: int) -> list[PlayerState]:
        return [q for j, q in enumerate(self.s.players) if j != i and q.alive]

    # dispatch
    def apply(self, ev: Event) -> None:
        s = self.s
        if s.finished:
            raise _Broken("record", "the game is over; no event follows its end")
        if ev.type != "start" and not s.started:  # pragma: no cover - parse_events forbids it
            raise _Broken("record", "the record begins with a start event")
        if s.combat is not None and ev.type not in ("reroll", "encounter", "mulligan", "recruit", "points"):
            raise _Broken(
                "record", f"the attack of event {s.combat.index} must close with its encounter first"
            )
        getattr(self, "on_" + ev.type)(ev)
        s.events_applied = ev.index + 1

    def on_start(self, ev: Event) -> None:
        extra = ev.f.get("options", {})
        clash = [k for k in extra if k in self.base_options and self.base_options[k] != extra[k]]
        if clash:
            raise InvalidInput(
                f"events.0.options: {clash[0]!r} differs from the game's options",
                [Problem(("events", 0, "options"), f"{clash[0]!r} differs from the game's options")],
            )
        options = {**self.base_options, **extra}
        self.s.options = options
        self.s.players = _new_players(self.names, options, ev.f["towers"], ev.index)
        self.s.order = ev.f.get("order", list(range(len(self.names))))
        self.s.started = True

    def check_number(
        self, p: PlayerState, number: int | str, ev: Event, turn: int, exclude_last: bool
    ) -> None:
        if number == "pass":
            if p.legions_on_board != 1:
                raise _Broken(
                    "4.7",
                    f"{p.name} may pass only when his one legion holds the Titan; he has {p.legions_on_board} legions",
                )
            return
        nums = p.numbers()
        if exclude_last and nums and p.movements and p.movements[-1].number == nums[-1]:
            nums = nums[:-1]
        if number in nums[-2:]:
            raise _Broken("4.2", f"{number} was used by {p.name} in one of his last two turns ({nums[-2:]})")
        centre = ev.f.get("centre", p.legions_in_centre)
        if number == 1 and turn > 1 and centre > 0 and not ev.f.get("centre_blocked", False):
            raise _Broken(
                "4.8", f"{p.name} has a legion in the centre and may not choose 1 after the first turn"
            )

    def on_movement(self, ev: Event) -> None:
        s = self.s
        i = ev.f["player"]
        p = self.need_alive(i)
        due = s.due()
        if due != i:
            raise _Broken(
                "3.2",
                f"it is {self.name(due) if due is not None else 'nobody'}'s turn to announce a number, not {p.name}'s",
            )
        centre = ev.f.get("centre", p.legions_in_centre)
        if centre > p.legions_on_board:
            raise _Broken(
                "record", f"{p.name} has only {p.legions_on_board} legions, not {centre} in the centre"
            )
        retried = s.active == i and not s.number_recorded
        turn = p.turns() + 1
        self.check_number(p, ev.f["number"], ev, turn, exclude_last=False)
        p.legions_in_centre = centre
        p.movements.append(Movement(turn=turn, number=ev.f["number"], index=ev.index))
        rule = "4.7" if ev.f["number"] == "pass" else "4.21"
        log(p, ev.index, rule, "movement", None, ev.f["number"], f"turn {turn} movement number recorded")
        if not retried:
            s.encountered = False
        s.first_teleport_tower = None
        s.turn_visits = 0
        s.active, s.number_recorded = i, True

    def on_teleport(self, ev: Event) -> None:
        i = ev.f["player"]
        p = self.need_turn(i, "a teleport")
        mv = p.movements[-1]
        if mv.number != 6:
            raise _Broken("5.1", f"a teleport needs a movement number of 6; {p.name} announced {mv.number}")
        if ev.f["to"] not in TOWERS:
            raise _Broken("5.1", f"a Titan legion teleports only to a Tower, not to hex {ev.f['to']}")
        self.visit(p, ev.f["to"], ev, "5.1", "teleport")
        first = ev.f.get("first_move", mv.turn == 1)
        if first:
            self.s.first_teleport_tower = ev.f["to"]

    def visit(self, p: PlayerState, tower: int, ev: Event, rule: str, how: str) -> None:
        if p.towers and p.towers[-1] == tower:
            raise _Broken("5.3", f"{p.name} may not stop in Tower {tower} twice in a row")
        p.towers.append(tower)
        self.s.turn_visits += 1
        log(p, ev.index, rule, "towers", None, tower, f"{how} in Tower {tower}")

    def on_stop(self, ev: Event) -> None:
        p = self.need_turn(ev.f["player"], "a Tower stop")
        if p.movements[-1].number == "pass":
            raise _Broken("4.7", f"{p.name} passed this turn; no legion of his moves")
        self.visit(p, ev.f["tower"], ev, "5.3", "stop")

    def add_legion(self, p: PlayerState, ev: Event, rule: str, note: str) -> None:
        if p.legions_on_board >= p.legion_markers:
            raise _Broken(
                "6.2",
                f"{p.name} holds {p.legion_markers} legion markers, all on the board; no legion can be added",
            )
        p.legions_on_board += 1
        log(p, ev.index, rule, "legions_on_board", 1, p.legions_on_board, note)

    def on_split(self, ev: Event) -> None:
        s = self.s
        i = ev.f["player"]
        p = self.need_alive(i)
        recorded = s.active == i and s.number_recorded
        if ev.f.get("forgotten"):
            if not recorded:
                raise _Broken(
                    "7.24",
                    f"{p.name} has not recorded a number this turn; a split now is free, not forgotten",
                )
            self.spend(p, ev, 1, "7.24", "mulligan burnt to make a forgotten split")
            self.add_legion(p, ev, "7.24", "forgotten split")
            return
        if recorded:
            raise _Broken(
                "7.24",
                f"{p.name} already recorded his number; a split now costs a mulligan (forgotten split)",
            )
        if s.due() != i:
            raise _Broken("3.2", f"{p.name} splits only in his own turn, before announcing his number")
        self.add_legion(p, ev, "3.2", "split")

    def retract_movement(self, ev: Event, i: int, stacks: int) -> None:
        s = self.s
        p = self.need_turn(i, "a retraction")
        if s.encountered:
            raise _Broken(
                "7.2", f"{p.name} has met an enemy this turn; the movement can no longer be retracted"
            )
        self.spend(
            p, ev, stacks, "7.2", f"'Oops!' retraction of {stacks} moved stack{'s' if stacks != 1 else ''}"
        )
        p.movements[-1].retracted = True
        log(p, ev.index, "7.2", "movement", None, None, f"number {p.movements[-1].number} retracted")
        for _ in range(s.turn_visits):  # the stacks go back: their Tower stops did not happen
            undone = p.towers.pop()
            log(p, ev.index, "7.2", "towers", None, undone, f"stop in Tower {undone} retracted")
        s.turn_visits = 0
        s.first_teleport_tower = None
        s.number_recorded = False

    def retract_split(self, ev: Event, i: int) -> None:
        p = self.need_turn(i, "a split retraction")
        if p.legions_on_board <= 1:
            raise _Broken("7.23", f"{p.name} has a single legion; there is no split to retract")
        self.spend(p, ev, 1, "7.23", "mulligan burnt to retract a split")
        p.legions_on_board -= 1
        log(p, ev.index, "7.23", "legions_on_board", -1, p.legions_on_board, "split retracted")

    def on_retract(self, ev: Event) -> None:
        if ev.f["what"] == "movement":
            self.retract_movement(ev, ev.f["player"], ev.f.get("stacks", 1))
        else:
            if "stacks" in ev.f:
                raise _Broken("7.23", "a split retraction costs one mulligan; it has no stacks")
            self.retract_split(ev, ev.f["player"])

    def on_recombine(self, ev: Event) -> None:
        p = self.need_alive(ev.f["player"])
        if p.legions_on_board <= 1:
            raise _Broken("4.5", f"{p.name} has a single legion; nothing recombines")
        p.legions_on_board -= 1
        log(p, ev.index, "4.5", "legions_on_board", -1, p.legions_on_board, "split legions recombined")

    def open_combat(self, ev: Event) -> Combat:
        s = self.s
        a, d = ev.f["attacker"], ev.f["defender"]
        pa = self.need_turn(a, "an attack")
        pd = self.need_alive(d)
        for q in (pa, pd):
            if q.legions_on_board < 1:
                raise _Broken("record", f"{q.name} has no legion on the board")
        s.encountered = True
        c = Combat(a, d, bool(ev.f.get("titan")), ev.index)
        if c.titan:
            pd.temporary_mulligan = 1
            log(pd, ev.index, "7.6", "temporary_mulligan", 1, 1, "Titan legion attacked: temporary mulligan")
        return c

    def on_attack(self, ev: Event) -> None:
        self.s.combat = self.open_combat(ev)

    def on_reroll(self, ev: Event) -> None:
        p = self.need_alive(ev.f["player"])
        n = ev.f.get("count", 1)
        if ev.f.get("titan") and p.temporary_mulligan:
            p.temporary_mulligan = 0
            log(p, ev.index, "7.6", "temporary_mulligan", -1, 0, "temporary mulligan used by the Titan")
            n -= 1
        if n:
            self.spend(p, ev, n, "7.5", f"{n} re-roll{'s' if n != 1 else ''} demanded (7.7)")

    def on_mulligan(self, ev: Event) -> None:
        i, n, reason = ev.f["player"], ev.f["count"], ev.f["reason"]
        p = self.need_alive(i)
        rule = SPEND_RULES[reason]
        if "number" in ev.f and reason != "correction":
            raise _Broken(rule, "only a correction (7.21) states a new number")
        if "creature" in ev.f and reason != "recruit":
            raise _Broken(rule, "only a recruit (7.9) names a creature")
        if reason in ("correction", "split-retraction", "forgotten-split") and n != 1:
            raise _Broken(rule, f"a {reason} costs exactly one mulligan, not {n}")
        if reason == "retraction":
            self.retract_movement(ev, i, n)
        elif reason == "split-retraction":
            self.retract_split(ev, i)
        elif reason == "forgotten-split":
            self.on_split(Event(ev.index, "split", {"player": i, "forgotten": True}))
        elif reason == "correction":
            self.correct(ev, p)
        elif reason == "recruit":
            if "creature" not in ev.f:
                raise _Broken("7.9", "a recruit paid with mulligans names its creature")
            self.recruit(ev, i, ev.f["creature"], n)
        elif reason == "reroll":
            self.spend(p, ev, n, "7.5", f"{n} re-roll{'s' if n != 1 else ''} demanded")
        else:
            self.spend(p, ev, n, "7.8", "battleland re-roll")

    def correct(self, ev: Event, p: PlayerState) -> None:
        self.need_turn(ev.f["player"], "a correction")
        mv = p.movements[-1]
        if "number" in ev.f:
            self.check_number(p, ev.f["number"], ev, mv.turn, exclude_last=True)
        self.spend(p, ev, 1, "7.21", "mulligan burnt to correct the announced number")
        if "number" in ev.f:
            mv.corrected_from, mv.number = mv.number, ev.f["number"]
            log(
                p, ev.index, "7.21", "movement", None, mv.number, f"number corrected from {mv.corrected_from}"
            )

    def recruit(self, ev: Event, i: int, creature: str, paid: int | None) -> None:
        s = self.s
        p = self.need_alive(i)
        tower = ev.f.get("tower")
        if (
            creature == "Warlock"
            and s.active == i
            and s.first_teleport_tower is not None
            and tower in (None, s.first_teleport_tower)
        ):
            raise _Broken(
                "5.2", f"{p.name}'s Titan legion's first move was a teleport; it may not recruit a Warlock"
            )
        if paid is None:
            log(p, ev.index, "3.2", "recruits", None, creature, f"recruited a {creature}")
            return
        if creature in BASIC:
            raise _Broken(
                "7.9", f"a {creature} is a basic creature; mulligans buy only higher-tier creatures"
            )
        cost = RECRUIT_COST[creature]
        if cost is None:
            if p.mulligans < 7:
                raise _Broken(
                    "7.9", f"a {creature} costs all mulligans, at least 7; {p.name} holds {p.mulligans}"
                )
            cost = p.mulligans
        if paid not in (-1, cost):
            raise _Broken("7.9", f"a {creature} costs {cost} mulligans, not {paid}")
        self.spend(p, ev, cost, "7.9", f"recruited a {creature} with mulligans")

    def on_recruit(self, ev: Event) -> None:
        self.recruit(ev, ev.f["player"], ev.f["creature"], -1 if ev.f.get("mulligans") else None)

    def acquire(self, p: PlayerState, ev: Event, rule: str, note: str, i: int) -> None:
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
        others = self.others(i)
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
                log(
                    p, ev.index, "7.4", "mulligans", 0, p.mulligans, "marker acquired; tied for last: no loss"
                )
                return
        self.lose_mulligan(p, ev, "7.4", "legion marker acquired")

    def remove_legion(self, p: PlayerState, ev: Event) -> None:
        if p.legions_on_board < 1:
            raise _Broken("record", f"{p.name} has no legion on the board to lose")
        p.legions_on_board -= 1
        p.legions_in_centre = min(p.legions_in_centre, p.legions_on_board)
        log(p, ev.index, "6.5", "legions_on_board", -1, p.legions_on_board, "legion lost; its marker returns")

    def on_encounter(self, ev: Event) -> None:
        s = self.s
        a, d, outcome = ev.f["attacker"], ev.f["defender"], ev.f["outcome"]
        if s.combat is not None:
            if (s.combat.attacker, s.combat.defender) != (a, d):
                raise _Broken(
                    "record",
                    f"the open attack is {self.name(s.combat.attacker)} on {self.name(s.combat.defender)}",
                )
            combat = s.combat
            if ev.f.get("titan") and not combat.titan:
                raise _Broken("record", "the attack was recorded without the defending Titan")
        else:
            combat = self.open_combat(ev)
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
            self.remove_legion(s.players[j], ev)
        for j, n in ev.f.get("legions", {}).items():
            q = self.need_alive(j)
            if n > q.legion_markers:
                raise _Broken(
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
            self.acquire(pa, ev, "6.3", f"destroyed a legion of {pd.name}", a)
        elif outcome == "surrendered":
            pa.surrenders_received += 1
            if pa.surrenders_received % 2 == 0:
                self.acquire(pa, ev, "6.4", "second enemy legion surrendered", a)
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
            self.acquire(pd, ev, "6.6", f"successful defence ({outcome})", d)
        elif outcome == "forfeited":
            pd.forfeit_defences += 1
            if pd.forfeit_defences % 2 == 0:
                self.acquire(pd, ev, "6.7", "second attack forfeited", d)
            else:
                log(pd, ev.index, "6.7", "forfeits", 1, pd.forfeit_defences, "one forfeit; a marker at two")
        # mulligans for markers removed from the board (7.3)
        for j in losers:
            q = s.players[j]
            others = self.others(j)
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
        for j, n in ev.f.get("points", {}).items():
            self.score(s.players[j], ev, n, j)

    def score(self, p: PlayerState, ev: Event, n: int, i: int) -> None:
        before = p.points
        p.points += n
        log(p, ev.index, "3.2", "points", n, p.points, "points scored")
        marks = p.points // 100 - before // 100
        for _ in range(marks):
            others = self.others(i)
            if others and p.points <= min(q.points for q in others):
                log(
                    p,
                    ev.index,
                    "7.41",
                    "mulligans",
                    0,
                    p.mulligans,
                    "100-point mark passed; fewest points: no loss",
                )
            else:
                self.lose_mulligan(p, ev, "7.41", "100-point mark passed")

    def on_points(self, ev: Event) -> None:
        i = ev.f["player"]
        self.score(self.need_alive(i), ev, ev.f["points"], i)

    def on_titan_killed(self, ev: Event) -> None:
        s = self.s
        i = ev.f["player"]
        p = self.need_alive(i)
        p.titans -= 1
        log(p, ev.index, "8.1", "titans", -1, p.titans, "Titan killed in battle")
        if p.titans > 0:
            return
        if p.mulligans >= 10:
            tower = ev.f.get("tower")
            if tower is None:
                raise _Broken(
                    "8.2", f"{p.name} is resurrected and must place his new legion in a Tower; name it"
                )
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
            raise _Broken("8.1", f"{p.name} holds {p.mulligans} mulligans, fewer than 10: no resurrection")
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
            s.last_encounter if s.last_encounter is not None and self.chained(ev.index) else ev.index
        )
        if len(s.alive()) <= 1:
            s.finished, s.ended_by = True, "elimination"

    def chained(self, index: int) -> bool:
        """Whether only titan_killed events lie between the last encounter and this one."""
        start = (self.s.last_encounter or 0) + 1
        return all(t == "titan_killed" for t in self.types[start:index])

    def on_end(self, ev: Event) -> None:
        self.s.finished, self.s.ended_by = True, "end"


def replay(players: list[str], options: dict[str, Any] | None, events: list[Any]) -> ReplayResult:
    """Replay a record; stop at the first violation, whose state is the one before that event."""
    players = parse_players(players)
    problems = option_problems(options or {})
    if problems:
        raise InvalidInput(problems[0], [Problem(("options",), m) for m in problems])
    parsed = parse_events(players, events)
    types = [e.type for e in parsed]
    r = _Replay(players, dict(options or {}), types)
    for ev in parsed:
        try:
            r.apply(ev)
        except _Broken as broken:
            clean = _Replay(players, dict(options or {}), types)
            for earlier in parsed[: ev.index]:
                clean.apply(earlier)
            return ReplayResult(False, clean.s, Violation(ev.index, broken.rule, broken.message))
    return ReplayResult(True, r.s)


def adjudicate_match(game_log: dict[str, Any], seats: int, seed: str) -> Adjudication:
    """A finished record's places: survivors by points, then the eliminated, latest first."""
    if not isinstance(game_log, dict):
        raise InvalidInput("game_log must be an object", [Problem(("game_log",), "must be an object")])
    players = game_log.get("players") or [f"Player {n}" for n in range(1, seats + 1)]
    if isinstance(players, list) and len(players) != seats:
        raise InvalidInput(
            f"the record has {len(players)} players but the match has {seats} seats",
            [Problem(("game_log", "players"), f"one player per seat ({seats})")],
        )
    result = replay(players, game_log.get("options"), game_log.get("events", []))
    if result.violation is not None:
        raise RuleViolation(
            result.violation.rule, f"event {result.violation.index}: {result.violation.message}"
        )
    places = result.state.places()
    if places is None:
        raise InvalidInput(
            "the game is not finished: the record ends before one player is left or an end event",
            [Problem(("game_log", "events"), "the game is not finished")],
        )
    outcome = "draw" if all(pl == 1 for pl in places) else "played"
    seat_outcomes = [
        SeatOutcome(seat=n, place=places[n], score=float(p.points))
        for n, p in enumerate(result.state.players)
    ]
    return Adjudication(outcome=outcome, seats=seat_outcomes, details=result.to_dict())
