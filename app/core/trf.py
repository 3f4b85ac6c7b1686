"""FIDE TRF-16 (the Tournament Report File that Swiss-Manager, JaVaFo and bbpPairings read) of a
2-seat Swiss or round robin stage (api.md "Exports").

Lines: ``012`` the name, ``042``/``052`` the first and last round's dates, ``062`` the players,
``092`` the kind of tournament, ``XXR`` the planned number of rounds (``planned_rounds``: the Swiss stage's rounds, or every round of
the round robin; never fewer than were paired), so that a pairing program continues a running event
from the file, then the points of a win, draw, loss and
pairing-allocated bye in bbpPairings' extension (``BBW``, ``BBD``, ``BBL``, ``BBU``) so that a reader
computes the same points, and one ``001`` line per player in fixed columns:

    cols  1-3 001 · 5-8 starting rank · 10 sex · 11-13 title · 15-47 name · 49-52 rating ·
    54-56 federation · 58-68 FIDE id · 70-79 birth date · 81-84 points · 86-89 rank ·
    then per round, from col 92 every 10 columns: 4 opponent's starting rank, colour, result.

Colour ``w`` is the first seat, ``b`` the second; results ``1`` ``=`` ``0`` for played games, ``+``
``-`` for forfeits (won / lost), ``U`` with opponent ``0000`` and colour ``-`` for a bye; a round an
entry did not play (dropped, or a late entry) is ``0000 - Z`` (zero-point bye).

Rulings: the starting rank is the stage's seed order; the FIDE id is the player's ``external_id``
when it is all digits (at most 11), else blank; the rating is the starting rating, rounded; names
longer than 33 characters are cut. A game the organizer made void is left out (``Z``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.lifecycle import swiss_rounds


@dataclass(frozen=True)
class TrfGame:
    opponent: int | None  # starting rank; None for a bye or an unplayed round
    colour: str  # w, b, -
    result: str  # 1 = 0 + - U Z


@dataclass(frozen=True)
class TrfPlayer:
    start: int
    name: str
    rating: float | None
    fide_id: str | None
    points: float
    rank: int
    games: Sequence[TrfGame]


def _points(p: float) -> str:
    return f"{p:4.1f}"[-4:]


def player_line(p: TrfPlayer) -> str:
    fide = p.fide_id if p.fide_id and p.fide_id.isdigit() and len(p.fide_id) <= 11 else ""
    rating = f"{round(p.rating):4d}" if p.rating is not None and 0 <= p.rating <= 9999 else "    "
    line = (
        f"001 {p.start:4d}  {'':3s} {p.name[:33]:<33s} {rating} {'':3s} {fide:>11s} {'':10s} "
        f"{_points(p.points)} {p.rank:4d}"
    )
    assert len(line) == 89, line
    for g in p.games:
        opp = "0000" if g.opponent is None else f"{g.opponent:4d}"
        line += f"  {opp} {g.colour} {g.result}"
    return line


def trf_document(
    name: str,
    start_date: str,
    end_date: str,
    kind: str,
    rounds: int,
    points: tuple[float, float, float, float],
    players: Sequence[TrfPlayer],
) -> str:
    win, draw, loss, bye = points
    lines = [
        f"012 {name[:80]}",
        f"042 {start_date}",
        f"052 {end_date}",
        f"062 {len(players)}",
        f"092 {kind}",
        f"XXR {rounds}",
        f"BBW {win:4.1f}",
        f"BBD {draw:4.1f}",
        f"BBL {loss:4.1f}",
        f"BBU {bye:4.1f}",
    ]
    lines.extend(player_line(p) for p in sorted(players, key=lambda p: p.start))
    return "\n".join(lines) + "\n"


def planned_rounds(
    swiss: bool, rounds_setting: int | None, group_sizes: Sequence[int], double: bool, paired: int
) -> int:
    """``XXR``: the rounds the stage is planned to play — FIDE's pairing programs refuse to pair a
    round beyond it. A Swiss stage plays its ``rounds`` (else ceil(log2 N)); a round robin plays
    n − 1 rounds (n + 1 − 1 with a bye a round when n is odd; twice that when ``double``), in its
    largest group. Never fewer than the rounds already paired (an organizer's extra round)."""
    largest = max(group_sizes, default=0)
    if swiss:
        planned = swiss_rounds(rounds_setting, sum(group_sizes))
    else:
        planned = (largest + largest % 2 - 1) * (2 if double else 1)
    return max(planned, paired)
