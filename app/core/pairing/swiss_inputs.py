"""What a Swiss round is paired from (formats.md "Swiss, 2 seats", "Seat allocation", "Swiss, N
seats"): from the stage's matches so far, each active entry's meetings, byes and seat history, and
the ``SwissEntry`` list ``swiss.pair_swiss`` takes.

* A meeting is any match two entries shared, whatever its state (a pending game is a meeting too:
  the round is paired again only from a whole history). Counts, for the N-seat tables' repeat cost.
* A bye is a match of status ``bye``.
* A seat history counts the confirmed 2-seat games an entry played at the table, in round order:
  a forfeit or a void gives no seat (the game was not played there), nor does a bye.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from app.core.pairing.swiss import SwissEntry
from app.core.vocabulary import MatchStatus, Outcome

# Games that give no seat: a forfeit or a void was not played at the table.
SEATLESS = frozenset({Outcome.FORFEIT, Outcome.VOID})


class SeatLike(Protocol):
    @property
    def entry_id(self) -> str: ...


class MatchLike(Protocol):
    """A match of the stage as the pairing reads it (``reads.PlayedMatch`` is one)."""

    @property
    def status(self) -> str: ...
    @property
    def outcome(self) -> str | None: ...
    @property
    def seats(self) -> Sequence[SeatLike]: ...


@dataclass
class SwissHistory:
    """Per active entry: whom it met and how often, its byes, its seats (0 first, 1 second)."""

    met: dict[str, dict[str, int]] = field(default_factory=dict)
    byes: dict[str, int] = field(default_factory=dict)
    seats: dict[str, list[int]] = field(default_factory=dict)
    forbidden: dict[str, set[str]] = field(default_factory=dict)


def swiss_history(
    active: Iterable[str], matches: Iterable[MatchLike], forbidden_pairs: Iterable[Sequence[str]] = ()
) -> SwissHistory:
    """The round's inputs for ``active`` from the stage's ``matches`` (in round and table order) and
    the event's forbidden pairs (a pair counts when both its entries are active)."""
    ids = list(active)
    history = SwissHistory(
        met={e: {} for e in ids},
        byes=dict.fromkeys(ids, 0),
        seats={e: [] for e in ids},
        forbidden={e: set() for e in ids},
    )
    for match in matches:
        entries = [s.entry_id for s in match.seats]
        if match.status == MatchStatus.BYE:
            if entries[0] in history.byes:
                history.byes[entries[0]] += 1
            continue
        _meet(history.met, entries)
        if len(entries) == 2 and match.status == MatchStatus.CONFIRMED and match.outcome not in SEATLESS:
            for position, e in enumerate(entries):
                if e in history.seats:
                    history.seats[e].append(position)
    for pair in forbidden_pairs:
        a, b = pair[0], pair[1]
        if a in history.forbidden and b in history.forbidden:
            history.forbidden[a].add(b)
            history.forbidden[b].add(a)
    return history


def _meet(met: dict[str, dict[str, int]], entries: Sequence[str]) -> None:
    for a in entries:
        mine = met.get(a)
        if mine is None:
            continue
        for b in entries:
            if a != b:
                mine[b] = mine.get(b, 0) + 1


def swiss_entries(
    order: Sequence[str],
    history: SwissHistory,
    *,
    points: Mapping[str, float],
    differentials: Mapping[str, float],
    clubs: Mapping[str, str | None],
    seat_balance: bool,
) -> list[SwissEntry]:
    """``pair_swiss``'s input, in ranking order; seat histories only with ``seat_balance``."""
    return [
        SwissEntry(
            id=e,
            score=points.get(e, 0.0),
            opponents=frozenset(history.met[e]),
            byes=history.byes[e],
            forbidden=frozenset(history.forbidden[e]),
            club=clubs.get(e),
            seats=tuple(history.seats[e]) if seat_balance else None,
            differential=differentials.get(e, 0.0),
        )
        for e in order
    ]
