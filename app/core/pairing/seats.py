"""Seat allocation in 2-seat Swiss (formats.md "Seat allocation"): who takes the first seat — white,
or the first player — at each pair, by the two entries' seat histories, as FIDE's rules do for
colours (C.04.1 f–g and C.04.3 E as bbpPairings applies them), in this order:

1. **both**: each entry's preference is granted when they differ (or one entry has none);
2. **stronger**: else the stronger preference wins — *absolute* (the seat difference would pass ±1,
   or three equal seats in a row), then *strong* (a difference of ±1), then *mild* (alternate from
   the last seat); between two absolutes the wider difference wins;
3. **alternate**: else both alternate from the latest round in which they sat in different seats;
4. **rank**: else the higher-ranked entry's preference is granted;
5. **initial**: two entries without any history (round 1, or two late entries) alternate by
   table: the higher-ranked entry takes the first seat at odd tables and the second at even ones.

A history counts the games an entry played in the stage (a bye, a void or a forfeited game
gives no seat). The pairing itself is ``swiss.pair_swiss``; with the entries' histories it also
prefers, among pairings of as many floats, those whose two entries do not prefer the same seat
(``swiss_cost.SEAT_COSTS``, by the strength of the preference that would give way).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FIRST, SECOND = 0, 1

# Games whose own rules draw who moves first (docs/battlebooks.md "Initiative token": drawn from the
# event seed; docs/rite-of-command.md "Dealing and play": a random first player): their seats are not
# balanced by default. In every other game the first seat (white, the first player) is an
# advantage worth balancing, so ``seat_balance`` is on by default in its 2-seat Swiss stages.
FIRST_PLAYER_DRAWN = frozenset({"battlebooks", "rite-of-command"})


def balanced_by_default(game_key: str) -> bool:
    return game_key not in FIRST_PLAYER_DRAWN


ABSOLUTE, STRONG, MILD, NONE = 3, 2, 1, 0
STRENGTH_NAMES = {ABSOLUTE: "absolute", STRONG: "strong", MILD: "mild", NONE: "none"}


@dataclass(frozen=True)
class Preference:
    seat: int | None  # FIRST, SECOND, or None without history
    strength: int
    diff: int  # first seats − second seats

    @property
    def kind(self) -> str:
        return STRENGTH_NAMES[self.strength]


def preference(history: Sequence[int]) -> Preference:
    """An entry's seat preference from its seats so far (0 = first, 1 = second, in round order)."""
    if not history:
        return Preference(None, NONE, 0)
    diff = sum(1 for s in history if s == FIRST) - sum(1 for s in history if s == SECOND)
    if len(history) >= 2 and history[-1] == history[-2]:
        return Preference(1 - history[-1], ABSOLUTE, diff)
    if diff > 1 or diff < -1:
        return Preference(SECOND if diff > 0 else FIRST, ABSOLUTE, diff)
    if diff != 0:
        return Preference(SECOND if diff > 0 else FIRST, STRONG, diff)
    return Preference(1 - history[-1], MILD, diff)


@dataclass(frozen=True)
class Allocation:
    first: str  # the entry on seat 0
    second: str
    rule: str  # both, stronger, alternate, rank, initial
    reason: str


def allocate(
    higher: str,
    lower: str,
    higher_history: Sequence[int],
    lower_history: Sequence[int],
    table: int,
) -> Allocation:
    """The seats of one pair: ``higher`` is the higher-ranked entry, ``table`` the 1-based table."""
    ph, pl = preference(higher_history), preference(lower_history)

    def give(entry_first: bool, rule: str, reason: str) -> Allocation:
        return (
            Allocation(higher, lower, rule, reason)
            if entry_first
            else Allocation(lower, higher, rule, reason)
        )

    def wants(p: Preference) -> str:
        return f"the {'first' if p.seat == FIRST else 'second'} seat ({p.kind}, difference {p.diff:+d})"

    if ph.seat is None and pl.seat is None:
        odd = table % 2 == 1
        return give(
            odd,
            "initial",
            f"no seat history: the higher-ranked entry takes the {'first' if odd else 'second'} seat at {'odd' if odd else 'even'} tables",
        )
    if pl.seat is None or (ph.seat is not None and ph.seat != pl.seat):
        assert ph.seat is not None
        why = "both preferences granted" if pl.seat is not None else "the only preference granted"
        return give(ph.seat == FIRST, "both", f"{why}: {higher} wants {wants(ph)}")
    if ph.seat is None:
        return give(pl.seat == SECOND, "both", f"the only preference granted: {lower} wants {wants(pl)}")
    # both want the same seat
    if ph.strength != pl.strength or (ph.strength == ABSOLUTE and abs(ph.diff) != abs(pl.diff)):
        higher_wins = (ph.strength, abs(ph.diff)) > (pl.strength, abs(pl.diff))
        winner, p = (higher, ph) if higher_wins else (lower, pl)
        first = (p.seat == FIRST) == higher_wins
        return give(
            first, "stronger", f"both want the same seat; {winner}'s preference is stronger: {wants(p)}"
        )
    for back in range(1, min(len(higher_history), len(lower_history)) + 1):
        h, low = higher_history[-back], lower_history[-back]
        if h != low:
            return give(
                h == SECOND,
                "alternate",
                f"equal preferences: both alternate from {back} game(s) ago, when they sat apart",
            )
    return give(
        ph.seat == FIRST,
        "rank",
        f"equal preferences and histories: the higher-ranked {higher} gets {wants(ph)}",
    )
