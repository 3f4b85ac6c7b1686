"""Strategic Titan: the state a replay keeps, and its ledger (strategic-titan.md, sections 4-9).

Per player: every turn's movement number (4.2), the Towers visited (5.3), legion markers and legions
on the board (6.1-6.8), mulligans and the temporary Titan mulligan (7.1-7.9), points, Titans and
resurrections (8.1-8.6), and the ledger: one ``LedgerEntry`` per change, naming the rule behind it
(written by ``log``). Per game: the options (9.1-9.5), the turn order and whose turn it is (OT,
rule "3.2"), the open attack and, once finished, the places. ``to_dict`` is the state as reported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from app.core.games.strategic_titan.vocabulary import START_MULLIGANS


@dataclass
class LedgerEntry:
    """One change of a player's state: which event (index), under which rule, to what value."""

    index: int | None
    rule: str
    field: str
    change: int | None
    value: Any
    note: str


@dataclass
class Movement:
    turn: int
    number: int | str  # 1-6 or "pass"
    index: int
    retracted: bool = False
    corrected_from: int | str | None = None


@dataclass
class PlayerState:
    name: str
    mulligans: int = START_MULLIGANS
    temporary_mulligan: int = 0
    legion_markers: int = 5
    legions_on_board: int = 1
    legions_in_centre: int = 0
    titans: int = 1
    points: int = 0
    alive: bool = True
    resurrected: int = 0
    eliminated_at: int | None = None
    surrenders_received: int = 0  # 6.4: enemy legions surrendered to this player
    forfeit_defences: int = 0  # 6.7: defences won by the attacker's forfeit
    towers: list[int] = field(default_factory=list)
    movements: list[Movement] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)

    def turn_numbers(self) -> list[int | str]:
        """Each turn's number (or "pass"), in order, retracted ones left out: the turns of 4.2."""
        return [m.number for m in self.movements if not m.retracted]

    def turns(self) -> int:
        return sum(1 for m in self.movements if not m.retracted)


@dataclass
class Combat:
    attacker: int
    defender: int
    titan: bool
    index: int


@dataclass
class GameState:
    players: list[PlayerState]
    options: dict[str, Any] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    started: bool = False
    active: int | None = None  # whose turn it is (the last player to announce a number)
    number_recorded: bool = False
    encountered: bool = False  # the active player met an enemy this turn (7.2)
    first_teleport_tower: int | None = None  # 5.2: this turn's first-move teleport
    turn_visits: int = 0  # Tower stops since the number was recorded (undone by a retraction, 7.2)
    combat: Combat | None = None
    finished: bool = False
    ended_by: str | None = None  # "elimination" or "end"
    events_applied: int = 0
    elimination_groups: dict[int, int] = field(default_factory=dict)  # player -> group (later = better)
    last_encounter: int | None = None
    last_battle: tuple[int, int] | None = None  # the last encounter's attacker and defender

    def alive(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if p.alive]

    def due(self) -> int | None:
        """The player who announces the next movement number."""
        alive = [i for i in self.order if self.players[i].alive]
        if not alive:
            return None
        if self.active is None:
            return alive[0]
        if not self.number_recorded and self.players[self.active].alive:
            return self.active
        pos = self.order.index(self.active)
        for step in range(1, len(self.order) + 1):
            cand = self.order[(pos + step) % len(self.order)]
            if self.players[cand].alive:
                return cand
        return None

    def places(self) -> list[int] | None:
        if not self.finished:
            return None
        keys: dict[int, tuple[int, int]] = {}
        for i, p in enumerate(self.players):
            if p.alive:
                keys[i] = (1, p.points)
            else:
                keys[i] = (0, self.elimination_groups.get(i, -1))
        return [1 + sum(1 for j in keys if keys[j] > keys[i]) for i in range(len(self.players))]

    def to_dict(self) -> dict[str, Any]:
        due = self.due() if self.started and not self.finished else None
        return {
            "started": self.started,
            "finished": self.finished,
            "ended_by": self.ended_by,
            "events": self.events_applied,
            "options": dict(self.options),
            "order": [self.players[i].name for i in self.order],
            "turn": {
                "player": self.players[self.active].name if self.active is not None else None,
                "number_recorded": self.number_recorded,
                "encountered": self.encountered,
                "next": self.players[due].name if due is not None else None,
            },
            "combat": (
                {
                    "attacker": self.players[self.combat.attacker].name,
                    "defender": self.players[self.combat.defender].name,
                    "titan": self.combat.titan,
                    "index": self.combat.index,
                }
                if self.combat
                else None
            ),
            "places": self.places(),
            "players": [_player_dict(p) for p in self.players],
        }


def _player_dict(p: PlayerState) -> dict[str, Any]:
    d = asdict(p)
    d["movement_numbers"] = [m.number for m in p.movements if not m.retracted]
    return d


def log(
    p: PlayerState, index: int | None, rule: str, fld: str, change: int | None, value: Any, note: str
) -> None:
    """Write one ledger entry: at event ``index``, under ``rule``, ``fld`` changed by ``change``."""
    p.ledger.append(LedgerEntry(index, rule, fld, change, value, note))
