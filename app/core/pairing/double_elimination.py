"""Double elimination (formats.md "Pairing and scheduling" — Double elimination): an entry is out
after its second loss. The bracket is data, built once when the stage opens; the rounds are
replayed from it and the results, so an undone round simply comes back.

* **Winners' bracket**: the first round is single elimination's (``method`` ``draw`` or ``seeded``,
  byes to fill the slots, app/core/pairing/elimination.py); ``W{r}.{i}`` is match i of round r,
  fed by the winners of ``W{r-1}.{2i}`` and ``W{r-1}.{2i+1}``.
* **Losers' bracket**, for ``slots = 2^k`` (k ≥ 2): ``L1.i`` pairs the losers of ``W1.{2i}`` and
  ``W1.{2i+1}``; then, for j = 1 … k−1, ``L{2j}.i`` pairs the winner of ``L{2j−1}.i`` with a loser
  dropping from winners' round j+1, and ``L{2j+1}.i`` pairs the winners of ``L{2j}.{2i}`` and
  ``L{2j}.{2i+1}``. The drops come in reversed order in every other losers' round (j odd), so an
  entry does not meet again at once the entry that just beat it. With 2 entries (k = 1) there is no
  losers' bracket: the loser of the only match is its champion.
* **Grand final** ``GF``: the winners' champion against the losers' champion; with
  ``grand_final_reset`` a second one, ``GF2``, is played when the losers' champion wins the first
  (both then have one loss).
* **Byes**: a match with one side empty (a bye in round 1, or a loser that a bye never made) is not
  played: the entry present goes on, and there is no loser. A match with both sides empty is empty.
* **Rounds**: each round plays every match whose two entries are known and that is not played yet,
  in bracket order (winners' matches first, then losers'); an entry is never in two at once.
* ``best_of`` is the games of every match (the caller reports the series as one match).

Rulings where the spec is silent: the reversed drops above; a drawn match goes to the higher
tie-break value (as in single elimination, decided by the caller); the grand final reset is off
unless asked (``grand_final_reset: true``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.pairing.elimination import single_elimination

EMPTY = ""  # the empty side of a bye
Source = tuple[str, str]  # ("entry", id) | ("empty", "") | ("winner", key) | ("loser", key)


@dataclass(frozen=True)
class DoubleMatch:
    key: str  # W1.0, L2.1, GF, GF2
    bracket: str  # winners, losers, final
    sources: tuple[Source, Source]


@dataclass(frozen=True)
class DoubleBracket:
    slots: int
    best_of: int
    reset: bool
    matches: tuple[DoubleMatch, ...]  # in bracket order

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "double",
            "slots": self.slots,
            "best_of": self.best_of,
            "reset": self.reset,
            "matches": [
                {"key": m.key, "bracket": m.bracket, "sources": [list(s) for s in m.sources]}
                for m in self.matches
            ],
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> DoubleBracket:
        return cls(
            int(raw["slots"]),
            int(raw.get("best_of", 1)),
            bool(raw.get("reset", False)),
            tuple(
                DoubleMatch(
                    m["key"],
                    m["bracket"],
                    (tuple(m["sources"][0]), tuple(m["sources"][1])),  # type: ignore[arg-type]
                )
                for m in raw["matches"]
            ),
        )


def build_double_elimination(
    entry_ids: Sequence[str],
    *,
    method: str = "draw",
    seed: str | None = None,
    purpose: str = "elimination:draw",
    best_of: int = 1,
    reset: bool = False,
) -> DoubleBracket:
    """The whole bracket; for ``seeded`` the ids are in seed order, ``draw`` needs the seed."""
    first = single_elimination(entry_ids, method=method, seed=seed, purpose=purpose, best_of=best_of)
    slots, k = first.slots, first.rounds
    matches: list[DoubleMatch] = []

    def side(entry: str | None) -> Source:
        return ("entry", entry) if entry is not None else ("empty", EMPTY)

    winners: list[list[str]] = []
    for r in range(1, k + 1):
        keys = []
        for i in range(slots >> r):
            key = f"W{r}.{i}"
            if r == 1:
                drawn = first.matches[0][i]
                sources = (side(drawn.first), side(drawn.second))
            else:
                sources = (("winner", f"W{r - 1}.{2 * i}"), ("winner", f"W{r - 1}.{2 * i + 1}"))
            matches.append(DoubleMatch(key, "winners", sources))
            keys.append(key)
        winners.append(keys)
    losers: list[DoubleMatch] = []
    if k == 1:
        champion_of_losers: Source = ("loser", "W1.0")
    else:
        prev = []
        for i in range(slots >> 2):
            key = f"L1.{i}"
            losers.append(
                DoubleMatch(key, "losers", (("loser", f"W1.{2 * i}"), ("loser", f"W1.{2 * i + 1}")))
            )
            prev.append(key)
        for j in range(1, k):
            drops = winners[j]  # winners' round j + 1
            order = list(reversed(drops)) if j % 2 == 1 else list(drops)
            cur = []
            for i, key_prev in enumerate(prev):
                key = f"L{2 * j}.{i}"
                losers.append(DoubleMatch(key, "losers", (("winner", key_prev), ("loser", order[i]))))
                cur.append(key)
            prev = cur
            if j < k - 1:
                nxt = []
                for i in range(len(prev) // 2):
                    key = f"L{2 * j + 1}.{i}"
                    losers.append(
                        DoubleMatch(key, "losers", (("winner", prev[2 * i]), ("winner", prev[2 * i + 1])))
                    )
                    nxt.append(key)
                prev = nxt
        champion_of_losers = ("winner", prev[0])
    # bracket order: winners' round r, then the losers' rounds its losers feed
    by_round: dict[int, list[DoubleMatch]] = {}
    for m in matches:
        by_round.setdefault(int(m.key[1:].split(".")[0]) * 2 - 1, []).append(m)
    for m in losers:
        lr = int(m.key[1:].split(".")[0])
        by_round.setdefault(lr + 1, []).append(m)  # L1 after W1 and W2, …
    ordered = [m for r in sorted(by_round) for m in by_round[r]]
    final = (("winner", f"W{k}.0"), champion_of_losers)
    ordered.append(DoubleMatch("GF", "final", final))
    if reset:
        ordered.append(DoubleMatch("GF2", "final", (("winner", "GF"), ("loser", "GF"))))
    return DoubleBracket(slots, best_of, reset, tuple(ordered))


@dataclass(frozen=True)
class BracketState:
    """Where the bracket stands: who plays in each match (None: not known yet), the matches that
    are ready to be played, and the champion once decided."""

    sides: Mapping[str, tuple[str | None, str | None]]
    ready: tuple[str, ...]
    champion: str | None


def bracket_state(bracket: DoubleBracket, results: Mapping[str, tuple[str, str]]) -> BracketState:
    """The state after ``results`` (match key → (winner, loser)); a result naming an entry that does
    not play in its match is InvalidInput."""
    outcome: dict[str, tuple[str | None, str | None]] = {}  # key → (winner, loser) once known
    sides: dict[str, tuple[str | None, str | None]] = {}
    problems: list[Problem] = []

    def resolve(src: Source) -> str | None:
        kind, ref = src
        if kind == "entry":
            return ref
        if kind == "empty":
            return EMPTY
        done = outcome.get(ref)
        if done is None:
            return None
        return done[0] if kind == "winner" else done[1]

    for m in bracket.matches:
        a, b = (resolve(s) for s in m.sources)
        sides[m.key] = (a, b)
        if m.key == "GF2":
            gf = outcome.get("GF")
            if gf is not None and gf[0] == sides["GF"][0]:
                outcome[m.key] = gf  # the winners' champion won the first final: no reset
                continue
        if a is None or b is None:
            continue
        if a == EMPTY or b == EMPTY:
            outcome[m.key] = (a or b, EMPTY)  # a bye: the entry present goes on (or empty)
            continue
        if m.key in results:
            winner, loser = results[m.key]
            if {winner, loser} != {a, b}:
                problems.append(Problem(("results", m.key), f"{m.key} is {a} against {b}"))
                continue
            outcome[m.key] = (winner, loser)
    if problems:
        raise InvalidInput("these results do not fit the bracket", problems)
    ready = tuple(
        m.key
        for m in bracket.matches
        if m.key not in outcome and None not in sides[m.key] and EMPTY not in sides[m.key]
    )
    last = "GF2" if bracket.reset else "GF"
    champion = outcome[last][0] if last in outcome else None
    return BracketState(sides, ready, champion)
