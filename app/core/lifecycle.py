"""The pure parts of running an event: draws at the start, who advances, when a stage is done
(formats.md "Words", "Stages"; api.md start / rounds / advance).

Rulings where the spec is silent:
- Tie-break values are 1..N (higher is better), from a seeded shuffle of the entries in registration
  order; entries flagged ``organizer`` take the lowest values (bga-round-robin.md: the organizer's
  value is always the lowest).
- A stage without ``advance`` takes every active entry of the stage before it. ``top: N`` takes the
  first N rows of the previous stage's standings; when a shared rank straddles the cut, the higher
  tie-break value goes through. ``group_winners`` takes the best row of each group by the same rule.
- A Swiss stage without ``rounds`` plays ceil(log2(N)) rounds.
- In single elimination a drawn match goes to the higher tie-break value (as a drawn series does);
  a match played best-of-N is reported once, the games won as each seat's score.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from app.core import rng
from app.core.event_settings import AdvanceRule
from app.core.vocabulary import EventStatus, StageStatus


def standings_final(stage_status: str, event_status: str) -> bool:
    """A stage's standings are final once it has closed, or once the event ended (finished, or
    cancelled: nothing more is played); before, they are provisional."""
    return stage_status == StageStatus.CLOSED or event_status in (EventStatus.FINISHED, EventStatus.CANCELLED)


def draw_tiebreak_values(entries: Sequence[tuple[str, bool]], seed: str) -> dict[str, float]:
    """Distinct values 1..N for ``(entry_id, is_organizer)`` pairs, given in registration order."""
    ids = [e for e, _ in entries]
    rng.stream(seed, "tiebreak_values").shuffle(ids)
    organizers = {e for e, org in entries if org}
    ordered = [e for e in ids if e in organizers] + [e for e in ids if e not in organizers]
    return {e: float(i + 1) for i, e in enumerate(ordered)}


def swiss_rounds(rounds: int | None, entries: int) -> int:
    """The rounds of a Swiss stage: its ``rounds`` setting, else ceil(log2(N))."""
    if rounds is not None and rounds > 0:
        return rounds
    return max(1, math.ceil(math.log2(max(entries, 2))))


@dataclass(frozen=True)
class RankedEntry:
    entry_id: str
    rank: int
    group: str | None
    tiebreak_value: float | None


def _by_rank(rows: Sequence[RankedEntry]) -> list[RankedEntry]:
    return sorted(rows, key=lambda r: (r.rank, -(r.tiebreak_value or 0.0), r.entry_id))


def select_advancing(rows: Sequence[RankedEntry], rule: AdvanceRule | None) -> list[str]:
    """The entries a stage's ``advance`` rule takes from the previous stage's standings, in seed order."""
    ordered = _by_rank(rows)
    if rule is None:
        return [r.entry_id for r in ordered]
    if rule.group_winners:
        best: dict[str | None, RankedEntry] = {}
        for r in ordered:
            best.setdefault(r.group, r)
        winners = _by_rank(list(best.values()))
        return [r.entry_id for r in winners]
    if rule.top is not None:
        return [r.entry_id for r in ordered[: rule.top]]
    return [r.entry_id for r in ordered]


def tied_for_first(rows: Sequence[RankedEntry]) -> list[str]:
    return [r.entry_id for r in _by_rank(rows) if r.rank == 1]


def series_winner(wins: Mapping[str, int], best_of: int) -> str | None:
    """The entry that has won more than half of a best-of-N series, if any."""
    need = best_of // 2 + 1
    for entry, w in wins.items():
        if w >= need:
            return entry
    return None
