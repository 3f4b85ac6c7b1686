"""The cost of one Swiss pair (formats.md "Swiss, 2 seats"): what the matching minimises, in integer
units, level by level (the rulings are in ``swiss``'s docstring):

1. ``FORBIDDEN_PENALTY`` (10¹⁴) for a forbidden pair, ``REMATCH_PENALTY`` (10¹²) for a rematch (with
   ``avoid_rematches``) — on the complete graph only, when nothing else pairs the block;
2. ``FLOAT_WEIGHT`` (10⁸) per score group the pair crosses;
3. ``SEAT_COSTS`` for the seat preference one of the two loses (with seat balance), by its strength;
   ``GAP_WEIGHT`` × (score gap)²; ``CLUB_PENALTY`` for two of one club (when clubs are avoided);
4. ``RANK_WEIGHT`` per rank step between the two.

Everything below a float adds up, over a block of ``swiss_graph.BLOCK_SIZE`` entries, to far less
than ``FLOAT_WEIGHT``: the fewest floats win whatever seats, gaps and ranks do below them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from app.core.pairing.seats import ABSOLUTE, MILD, STRONG

GAP_WEIGHT = 10_000
RANK_WEIGHT = 1
FLOAT_WEIGHT = 10**8
REMATCH_PENALTY = 10**12
FORBIDDEN_PENALTY = 10**14
CLUB_PENALTY = 60
SEAT_COSTS = {ABSOLUTE: 50_000, STRONG: 1000, MILD: 10}

# an entry's seat preference as the pairing prices it: (seat, strength), or None without one
SeatPref = tuple[int, int] | None


def clash(a: SeatPref, b: SeatPref) -> int:
    """The strength of the preference lost when ``a`` and ``b`` meet (0 when both can have theirs):
    both prefer the same seat, and the weaker of the two preferences gives way."""
    if a is None or b is None or a[0] != b[0]:
        return 0
    return min(a[1], b[1])


def score_groups(scores: Iterable[float]) -> dict[float, int]:
    """Each score's group, 0 for the highest: the index of the score among those the field holds."""
    return {s: i for i, s in enumerate(sorted(set(scores), reverse=True))}


def class_cost(
    score_a: float, pref_a: SeatPref, score_b: float, pref_b: SeatPref, groups: Mapping[float, int]
) -> tuple[int, int, int]:
    """(float cost, gap cost, seat cost) of a pair, from the two entries' scores and seat preferences;
    ``groups`` numbers the field's score groups (``score_groups``)."""
    gap = abs(score_a - score_b)
    level = clash(pref_a, pref_b)
    return (
        FLOAT_WEIGHT * abs(groups[score_a] - groups[score_b]),
        round(GAP_WEIGHT * gap * gap),
        SEAT_COSTS[level] if level else 0,
    )
