"""Why a generated round is paired as it is: the shapes a format writes into ``explain`` (kept on
the round as ``details["pairing"]``, answered as ``RoundRead.pairing``). The OpenAPI document's
schemas are generated from these types (app/api/contract.py), so the contract is the code's."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


class PairSeats(TypedDict):
    """Seat allocation of a pair (formats.md "Seat allocation"): who sits first, by which rule."""

    first: str
    rule: str
    reason: str


class PairRow(TypedDict):
    """One Swiss pair and its cost parts (formats.md "Swiss, 2 seats")."""

    entries: list[str]
    score_gap: float
    rank_distance: int
    rematch: bool
    forbidden: bool
    same_club: bool
    club_cost: int
    seat_clash: bool
    seat_cost: int
    cost: int
    seats: NotRequired[PairSeats]


class ByeRow(TypedDict):
    entry: str
    byes_before: int
    rule: str


class SwissExplanation(TypedDict):
    """A 2-seat Swiss round (``method``: the stage's ``pairing``)."""

    method: str
    total_cost: int
    rematches: int
    avoid_same_club: bool
    seat_balance: bool
    pairs: NotRequired[list[PairRow]]  # a round's read gives it on request (?explain=true)
    bye: ByeRow | None
    notes: list[str]


class TableRow(TypedDict):
    entries: list[str]
    repeat_cost: int
    forbidden_pairs: int
    same_club_pairs: int


class TablesExplanation(TypedDict):
    """An N-seat Swiss round: tables by score, fewest repeated meetings."""

    method: Literal["tables"]
    total_repeat_cost: int
    avoid_same_club: bool
    tables: NotRequired[list[TableRow]]  # a round's read gives it on request (?explain=true)


class BracketExplanation(TypedDict):
    """A double-elimination round: the bracket matches it plays."""

    method: Literal["double_elimination"]
    matches: list[str]


EXPLANATIONS = (SwissExplanation, TablesExplanation, BracketExplanation)

# The per-pair (per-table) parts of an explanation: the bulk of it (a 512-entry Swiss round's pairs
# outweigh its matches); a round's read leaves them out unless asked (api.md "Start, rounds and advance").
PER_PAIR = ("pairs", "tables")
