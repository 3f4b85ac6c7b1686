"""Standings: ranking basis, then the tie-break chain, with the reason for every split
(formats.md "Scoring schemes" — ranking basis — and "Tie-break criteria"; bga-round-robin.md
"Ranking"; titan-arena.md "Seeding"; api.md ``GET /v1/events/{id}/standings`` and "Event settings").

Entries sort by the basis (``total`` points or ``average`` points per game), then each criterion of
the chain is applied in turn to the groups still tied (recursive refinement: a group-dependent
criterion such as ``head_to_head`` sees exactly the entries still tied at that point). The first
level that separates a row from the row above is its ``decided_by``; entries still equal after the
whole chain share a rank (1, 2, 2, 4).

Rulings where the spec is silent:
- ``points`` on a row is the total (bye points included); ``games`` counts games played (no byes,
  no voids). With basis ``average`` the basis is (points − bye points) / games: byes are left out of
  numerator and denominator, since a bye is not a game played. An entry with no game has no average
  (N/A) and ranks below every entry that has one.
- ``decided_by`` is ``"points"`` (basis ``total``) or ``"average"`` when the basis itself separates.
- ``tiebreaks`` on a row holds a value for every criterion of the chain: entry-only criteria are
  computed for everyone; ``head_to_head`` and ``dice`` hold the value of the group where they were
  applied, ``None`` when the entry was never in a tie that reached them (or N/A).
- Rows sharing a rank are listed by name, then entry id; every other order comes from the input
  sorted canonically (entries by id, games by match id), so input order never matters.
- Dropped or withdrawn entries stay in the standings with their results and their ``status``.
- Games may be filtered by ``stage``; a game naming an entry not in ``entries`` is invalid input,
  as is a duplicate entry id or match id.
- Defaults of the settings this module owns: ``ranking_basis`` ``total``, ``tiebreaks`` empty
  (ties share a rank), ``h2h_default`` 0.5; scoring defaults are in scoring.py.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.scoring import (
    DRAW,
    WIN,
    GameResult,
    ScoredGame,
    ScoringConfig,
    game_problems,
    parse_scoring,
    score_game,
)
from app.core.tiebreaks import Criterion, EntryStats, Ledger, Value, build_chain, chain_problems
from app.core.vocabulary import Outcome

BASES = ("total", "average")
OWN_KEYS = ("scoring", "violation_points", "victim_points", "ranking_basis", "tiebreaks", "h2h_default")


@dataclass(frozen=True)
class EntryInfo:
    entry_id: str
    name: str
    tiebreak_value: float | None = None
    status: str = "active"


@dataclass(frozen=True)
class StandingsConfig:
    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    ranking_basis: str = "total"
    tiebreaks: tuple[str, ...] = ()
    h2h_default: float = 0.5


@dataclass(frozen=True)
class StandingRow:
    rank: int
    entry_id: str
    name: str
    points: float
    games: int
    wins: int
    differential: float
    tiebreaks: dict[str, Value]
    decided_by: str | None
    status: str
    average: float | None = None
    byes: int = 0
    draws: int = 0
    losses: int = 0


def _parse(settings: Mapping[str, Any]) -> tuple[StandingsConfig, list[Problem]]:
    scoring, problems = parse_scoring(settings)
    basis = settings.get("ranking_basis", "total")
    if basis is None:
        basis = "total"
    if basis not in BASES:
        msg = f"unknown ranking basis {basis!r}; one of total, average"
        problems.append(Problem(("ranking_basis",), msg))
        basis = "total"
    names = settings.get("tiebreaks", [])
    if names is None:
        names = []
    chain = chain_problems(names)
    problems.extend(chain)
    h2h = settings.get("h2h_default", 0.5)
    if h2h is None:
        h2h = 0.5
    if isinstance(h2h, bool) or not isinstance(h2h, int | float) or not math.isfinite(h2h):
        problems.append(Problem(("h2h_default",), "must be a finite number"))
        h2h = 0.5
    tiebreaks = tuple(names) if not chain else ()
    return StandingsConfig(scoring, basis, tiebreaks, float(h2h)), problems


def settings_problems(
    settings: Mapping[str, Any],
    prefix: tuple[str | int, ...] = (),
    keys: Sequence[str] = OWN_KEYS,
) -> list[Problem]:
    """Every problem in the settings keys this engine owns, each ``loc`` prefixed by ``prefix``.

    ``keys`` narrows the report to some of ``OWN_KEYS`` (e.g. ``("scoring", "tiebreaks")`` when the
    caller already checks the plain numeric keys itself). Other settings keys are ignored.
    """
    if not isinstance(settings, Mapping):
        return [Problem(prefix, "must be an object")]
    _, problems = _parse(settings)
    return [Problem((*prefix, *p.loc), p.msg) for p in problems if p.loc and p.loc[0] in keys]


def standings_config(settings: Mapping[str, Any]) -> StandingsConfig:
    """The standings config of event settings (the keys of ``OWN_KEYS``; other keys are ignored).

    Raises ``InvalidInput`` listing every problem with its location (e.g. ``("tiebreaks", 2)``).
    """
    config, problems = _parse(settings)
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the standings settings", problems)
    return config


# --------------------------------------------------------------------------- aggregation


def build_ledger(
    entries: Sequence[EntryInfo],
    games: Sequence[GameResult],
    config: StandingsConfig,
    seed: str = "",
) -> Ledger:
    """Validate the input and aggregate it once per entry."""
    problems: list[Problem] = []
    stats: dict[str, EntryStats] = {}
    for i, entry in enumerate(entries):
        if entry.entry_id in stats:
            problems.append(Problem(("entries", i, "entry_id"), f"duplicate entry {entry.entry_id!r}"))
        stats[entry.entry_id] = EntryStats(entry.entry_id, entry.tiebreak_value)
    match_ids: set[str] = set()
    for i, game in enumerate(games):
        problems.extend(game_problems(game, ("games", i)))
        if game.match_id in match_ids:
            problems.append(Problem(("games", i, "match_id"), f"duplicate match {game.match_id!r}"))
        match_ids.add(game.match_id)
        for j, reported in enumerate(game.seats):
            if reported.entry_id not in stats:
                msg = f"unknown entry {reported.entry_id!r}"
                problems.append(Problem(("games", i, "seats", j, "entry_id"), msg))
    if problems:
        raise InvalidInput("invalid results", problems)

    # match ids are unique, so this is a canonical order: float sums never depend on input order
    ordered = sorted(games, key=attrgetter("match_id"))
    counted: list[ScoredGame] = []
    scoring = config.scoring
    for game in ordered:
        scored = score_game(game, scoring)
        if scored is None:
            continue
        entries_at = scored.entries
        pts = scored.points
        if scored.outcome == Outcome.BYE:
            s = stats[entries_at[0]]
            s.points += pts[0]
            s.bye_points += pts[0]
            s.byes += 1
            continue
        counted.append(scored)
        diffs = scored.differentials
        results = scored.results
        two = len(entries_at) == 2
        for si, e in enumerate(entries_at):
            s = stats[e]
            others = (entries_at[1 - si],) if two else entries_at[:si] + entries_at[si + 1 :]
            s.meetings.append((others, pts[si]))
            s.points += pts[si]
            s.differential += diffs[si]
            s.games += 1
            r = results[si]
            if r == WIN:
                s.wins += 1
            elif r == DRAW:
                s.draws += 1
            else:
                s.losses += 1
        if scored.outcome == Outcome.PLAYED:
            _place_stats(scored, stats)
    return Ledger(stats, counted, config.h2h_default, seed)


def _place_stats(scored: ScoredGame, stats: dict[str, EntryStats]) -> None:
    """Seconds and points behind the winner, from a played game's recorded places and scores."""
    places = scored.places
    if places is None:
        return
    scores = scored.scores
    firsts = [scores[i] for i, p in enumerate(places) if p == 1]
    top = max(firsts) if None not in firsts else None  # type: ignore[type-var]
    for si, e in enumerate(scored.entries):
        s = stats[e]
        place = places[si]
        if place == 2:
            s.seconds += 1
        own = scores[si]
        if top is not None and own is not None:
            behind = 0.0 if place == 1 else top - own
            s.behind_all = (s.behind_all or 0.0) + behind
            if place == 2:
                s.behind_seconds = (s.behind_seconds or 0.0) + behind


# --------------------------------------------------------------------------- ranking


def _basis_key(basis: str, s: EntryStats) -> tuple[int, float]:
    value = s.points if basis == "total" else s.average
    if value is None:
        return (1, 0.0)
    return (0, -(round(value, 9) + 0.0))


def _split(members: list[str], keyed: dict[str, Any]) -> list[list[str]]:
    """Sort members by key (stable) and cut into runs of equal keys."""
    members = sorted(members, key=keyed.__getitem__)
    groups: list[list[str]] = []
    last: Any = object()
    for e in members:
        k = keyed[e]
        if groups and k == last:
            groups[-1].append(e)
        else:
            groups.append([e])
            last = k
    return groups


def compute_standings(
    entries: Sequence[EntryInfo],
    games: Sequence[GameResult],
    config: StandingsConfig,
    seed: str = "",
    stage: str | None = None,
) -> list[StandingRow]:
    """The ranked standings of ``entries`` after ``games`` (only those of ``stage`` when given)."""
    # Pure computation that allocates a few hundred thousand small objects: the cyclic garbage
    # collector would rescan the growing heap many times over (2-3x the run time), and none of
    # these objects form cycles, so it is paused for the call and restored afterwards.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _compute(entries, games, config, seed, stage)
    finally:
        if paused:
            gc.enable()


def _compute(
    entries: Sequence[EntryInfo],
    games: Sequence[GameResult],
    config: StandingsConfig,
    seed: str,
    stage: str | None,
) -> list[StandingRow]:
    chain: tuple[Criterion, ...] = build_chain(config.tiebreaks)
    if config.ranking_basis not in BASES:
        msg = f"unknown ranking basis {config.ranking_basis!r}"
        raise InvalidInput("invalid ranking basis", [Problem(("ranking_basis",), msg)])
    if stage is not None:
        games = [g for g in games if g.stage == stage]
    ledger = build_ledger(entries, games, config, seed)
    info = {e.entry_id: e for e in entries}
    ids = sorted(info)

    values: dict[str, dict[str, Value]] = {e: {} for e in ids}
    for crit in chain:
        if crit.group_dependent:
            for e in ids:
                values[e][crit.name] = None
        else:
            for e, v in crit.fn(ledger, ids).items():
                values[e][crit.name] = v

    final_groups: list[tuple[list[str], str | None]] = []

    def refine(group: list[str], level: int, reason: str | None) -> None:
        """Split a tied group by chain[level]; ``reason`` is what separated it from the group above."""
        if len(group) == 1 or level == len(chain):
            final_groups.append((group, reason))
            return
        crit = chain[level]
        if crit.group_dependent:
            for e, v in crit.fn(ledger, group).items():
                values[e][crit.name] = v
        keyed = {e: crit.sort_key(values[e][crit.name]) for e in group}
        for i, sub in enumerate(_split(group, keyed)):
            refine(sub, level + 1, reason if i == 0 else crit.name)

    basis = config.ranking_basis
    basis_label = "points" if basis == "total" else "average"
    basis_keys = {e: _basis_key(basis, ledger.stats[e]) for e in ids}
    for i, group in enumerate(_split(ids, basis_keys)):
        refine(group, 0, None if i == 0 else basis_label)

    rows: list[StandingRow] = []
    position = 0
    for group, reason in final_groups:
        rank = position + 1
        for k, e in enumerate(sorted(group, key=lambda x: (info[x].name, x))):
            s = ledger.stats[e]
            rows.append(
                StandingRow(
                    rank=rank,
                    entry_id=e,
                    name=info[e].name,
                    points=s.points,
                    games=s.games,
                    wins=s.wins,
                    differential=s.differential,
                    tiebreaks=values[e],
                    decided_by=reason if k == 0 else None,
                    status=info[e].status,
                    average=s.average,
                    byes=s.byes,
                    draws=s.draws,
                    losses=s.losses,
                )
            )
        position += len(group)
    return rows


__all__ = [
    "EntryInfo",
    "StandingRow",
    "StandingsConfig",
    "build_ledger",
    "compute_standings",
    "settings_problems",
    "standings_config",
]
