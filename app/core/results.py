"""A reported result, checked against its table and normalized (api.md ``POST /v1/matches/{id}/result``;
formats.md "Words" — Result).

Two players' reports agree when their normalized forms are equal, so normalization decides what
"the same result" means: places in competition form (1, 1, 3), scores as numbers, the body-point
differential signed to the winner, and the outcome's implied places filled in.

Rulings where the spec is silent:
- ``played`` needs a place for every seat, or a score for every seat (places then follow the scores,
  higher is better, equal scores share a place), or a game log for a game with an adjudicator.
- Places given are never renumbered (formats.md "Presets", the ruling "places are never
  renumbered"): in a ``played`` game, or a ``forfeit`` with a place 1, each seat's place must be 1 +
  the number of seats placed ahead of it (1, 2, 2, 4 or 1, 1, 3). [2, 3, 3] or [1, 3] at two seats
  are refused naming each seat out of form, and a played [2, 2] is refused (nobody is 1st), never
  read as a draw; a draw is reported as ``draw`` or [1, 1].
- ``draw`` and ``timeout`` give every seat place 1, whatever was sent.
- ``forfeit`` needs places: the seats that did not forfeit take place 1; a table where everyone
  forfeited has no place 1 (all lose), and keeps none after normalization: places 2, 2 stay 2, 2,
  and 2, 3 become 2, 2 (a double forfeit credits nobody with a win).
- ``void`` records no places: the game counts for nothing.
- ``body_points`` (BATTLEBOOKS) on both seats of a two-seat game, without an explicit differential,
  give a differential of their difference, + to the winner and − to the loser (0 for a draw).
- In a two-seat game the differential is one gap, + to the winner and − to the loser: an explicit
  one given on one seat gives the other seat its opposite; one that contradicts the winner's sign,
  the other seat's or the body points (a gap other than theirs), or that is not 0 in an undecided
  game (a draw, a time-out, a shared place, a double forfeit, a void), is refused naming the seat
  — never re-signed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.scoring import effective_places
from app.core.vocabulary import Outcome

OUTCOMES = (Outcome.PLAYED, Outcome.DRAW, Outcome.TIMEOUT, Outcome.FORFEIT, Outcome.VOID)


@dataclass(frozen=True)
class ReportedSeat:
    entry_id: str
    place: int | None = None
    score: float | None = None
    body_points: float | None = None
    differential: float | None = None
    character: str | None = None
    violation: bool = False

    def as_dict(self) -> dict[str, Any]:
        """``dataclasses.asdict`` of a seat, written out: a result builds several per request."""
        return {
            "entry_id": self.entry_id,
            "place": self.place,
            "score": self.score,
            "body_points": self.body_points,
            "differential": self.differential,
            "character": self.character,
            "violation": self.violation,
        }


@dataclass(frozen=True)
class Report:
    outcome: str
    seats: tuple[ReportedSeat, ...]  # in the match's seat order

    def as_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "seats": [s.as_dict() for s in self.seats]}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Report:
        return Report(data["outcome"], tuple(ReportedSeat(**s) for s in data["seats"]))


def competition_places(keys: Sequence[float], higher_is_better: bool) -> list[int]:
    """Places 1, 1, 3, … from sort keys; equal keys share the better place."""
    return effective_places([-k for k in keys] if higher_is_better else list(keys))


def normalize(match_entries: Sequence[str], outcome: str | None, seats: Sequence[ReportedSeat]) -> Report:
    """Check a report against the table (the match's entries, in seat order) and normalize it.

    Raises InvalidInput naming every problem: an entry not at the table, a seat missing or given
    twice, a place outside the table, places not in competition form, missing places.
    """
    outcome = outcome or Outcome.PLAYED
    ordered = _ordered_seats(match_entries, outcome, seats)
    n = len(match_entries)
    reported_at = {s.entry_id: i for i, s in enumerate(seats)}
    places = _places(outcome, ordered, [reported_at[s.entry_id] for s in ordered])
    diffs = [s.differential for s in ordered]
    if n == 2:
        diffs = _two_seat_differentials(outcome, places, ordered)
    out = tuple(
        ReportedSeat(
            entry_id=s.entry_id,
            place=places[i],
            score=None if s.score is None else float(s.score),
            body_points=None if s.body_points is None else float(s.body_points),
            differential=None if diffs[i] is None else float(diffs[i] or 0.0),
            character=s.character,
            violation=bool(s.violation),
        )
        for i, s in enumerate(ordered)
    )
    return Report(outcome, out)


def _ordered_seats(
    match_entries: Sequence[str], outcome: str, seats: Sequence[ReportedSeat]
) -> list[ReportedSeat]:
    """The reported seats in the table's order; InvalidInput naming every seat that does not fit."""
    problems: list[Problem] = []
    if outcome not in OUTCOMES:
        problems.append(Problem(("outcome",), f"must be one of {', '.join(OUTCOMES)}"))
    n = len(match_entries)
    by_entry: dict[str, ReportedSeat] = {}
    for i, seat in enumerate(seats):
        if seat.entry_id not in match_entries:
            problems.append(Problem(("seats", i, "entry_id"), f"entry {seat.entry_id} is not at this table"))
        elif seat.entry_id in by_entry:
            problems.append(Problem(("seats", i, "entry_id"), f"entry {seat.entry_id} is listed twice"))
        else:
            by_entry[seat.entry_id] = seat
        if seat.place is not None and not 1 <= seat.place <= n:
            problems.append(Problem(("seats", i, "place"), f"place {seat.place} does not fit a table of {n}"))
    missing = [e for e in match_entries if e not in by_entry]
    if missing and not problems:
        problems.append(Problem(("seats",), f"every seat must be reported; missing {', '.join(missing)}"))
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    return [by_entry[e] for e in match_entries]


def _places(outcome: str, ordered: Sequence[ReportedSeat], at: Sequence[int]) -> list[int | None]:
    """The places an outcome gives the seats (in table order; ``at``: where each was reported)."""
    n = len(ordered)
    if outcome in (Outcome.DRAW, Outcome.TIMEOUT):
        return [1] * n
    if outcome == Outcome.VOID:
        return [None] * n
    given = [s.place for s in ordered]
    scores = [s.score for s in ordered]
    if all(p is not None for p in given):
        if outcome == Outcome.FORFEIT and 1 not in given:
            return [max(p or 2, 2) for p in competition_places([float(p or 0) for p in given], False)]
        _check_competition_form([p or 0 for p in given], outcome, at)
        return list(given)
    if outcome == Outcome.PLAYED and all(p is None for p in given) and all(s is not None for s in scores):
        return list(competition_places([float(s) for s in scores if s is not None], True))
    what = "a place for every seat" if outcome == Outcome.FORFEIT else "a place (or a score) for every seat"
    raise InvalidInput(f"a {outcome} result needs {what}", [Problem(("seats",), f"needs {what}")])


def _check_competition_form(given: Sequence[int], outcome: str, at: Sequence[int]) -> None:
    """Places as reported must already be in competition form (1, 2, 2, 4 or 1, 1, 3): each seat's
    place is 1 + the number of seats placed ahead of it. Never renumbered (formats.md "Presets",
    the ruling "places are never renumbered"): InvalidInput naming every seat whose place is not."""
    form = competition_places([float(p) for p in given], False)
    problems = [
        Problem(
            ("seats", at[i], "place"),
            f"place {p} is not in competition form (1, 2, 2, 4 or 1, 1, 3): "
            + (
                "no seat is placed 1st"
                if form[i] == 1
                else f"{form[i] - 1} seat{'s' if form[i] > 2 else ''} placed ahead of it make it place {form[i]}"
            ),
        )
        for i, p in enumerate(given)
        if p != form[i]
    ]
    if problems:
        raise InvalidInput(f"a {outcome} result's places are never renumbered: {problems[0].msg}", problems)


def _two_seat_differentials(
    outcome: str, places: Sequence[int | None], seats: Sequence[ReportedSeat]
) -> list[float | None]:
    """The two seats' differentials: one gap, + to the winner and − to the loser (0 when the game
    is undecided), from the explicit ones or the body points; InvalidInput naming the seat whose
    differential contradicts the winner, the other seat or the body points."""
    given = [None if s.differential is None else float(s.differential) for s in seats]
    gap = None
    if all(s.body_points is not None for s in seats):
        gap = abs(float(seats[0].body_points or 0) - float(seats[1].body_points or 0))
    problems: list[Problem] = []
    decided = (
        outcome in (Outcome.PLAYED, Outcome.FORFEIT)
        and None not in places
        and places[0] != places[1]
        and min(p or 99 for p in places) == 1
    )
    if not decided:
        for i, d in enumerate(given):
            if d:
                problems.append(
                    Problem(
                        ("seats", i, "differential"),
                        f"{seats[i].entry_id}'s differential is {d:g}, but an undecided game's differential is 0",
                    )
                )
        if problems:
            raise InvalidInput(problems[0].msg, problems)
        return [0.0, 0.0] if gap is not None or any(d is not None for d in given) else [None, None]
    w = 0 if (places[0] or 99) < (places[1] or 99) else 1
    lo = 1 - w
    won, lost = given[w], given[lo]
    if won is not None and won < 0:
        problems.append(
            Problem(
                ("seats", w, "differential"),
                f"{seats[w].entry_id} won: their differential is + (or 0), not {won:g}",
            )
        )
    if lost is not None and lost > 0:
        problems.append(
            Problem(
                ("seats", lo, "differential"),
                f"{seats[lo].entry_id} lost: their differential is − (or 0), not {lost:g}",
            )
        )
    if not problems and won is not None and lost is not None and lost != -won:
        problems.append(
            Problem(
                ("seats", lo, "differential"),
                f"{seats[lo].entry_id}'s differential, {lost:g}, is not the winner's with the sign turned"
                f" ({-won:g})",
            )
        )
    magnitude = won if won is not None else (None if lost is None else -lost)
    if not problems and magnitude is not None and gap is not None and magnitude != gap:
        at, value = (w, won) if won is not None else (lo, lost)
        problems.append(
            Problem(
                ("seats", at, "differential"),
                f"{seats[at].entry_id}'s differential, {value:g}, contradicts the body points, {gap:g} apart",
            )
        )
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    if magnitude is None:
        magnitude = gap
    if magnitude is None:
        return [None, None]
    out: list[float | None] = [0.0, 0.0]
    out[w], out[lo] = magnitude + 0.0, 0.0 - magnitude
    return out
