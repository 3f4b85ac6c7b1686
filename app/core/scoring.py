"""How a result becomes event points (formats.md "Scoring schemes"; battlebooks.md "Scoring";
bga-round-robin.md `bga-round-robin-3p` "Points per game" and "Violations").

Schemes: ``wdl`` (points for win / draw / loss), ``placement`` (points by place at an N-seat table,
tied seats share the mean of the places they cover) and ``game_score`` (the game's own score, summed).
A differential accumulates beside the points; a violation overrides the game's outcome.

Rulings where the spec is silent:
- Places only define an order. Seats are sorted by place and tied seats cover consecutive positions,
  so ``(1, 1, 2)`` and ``(1, 1, 3)`` both mean "two share 1st–2nd, the third is 3rd". The effective
  place of a seat is 1 + the number of seats strictly ahead of it (competition ranking); a match's
  report is refused unless already in that form (``results.normalize``), the stateless tools read
  places as an order.
- A ``played`` game with no places but a score for every seat takes its places from the scores
  (higher is better, equal scores tie). Any other missing place in a played game is invalid input.
- ``played``: a sole first place is a win and every other seat a loss; a shared first place is a
  draw for the sharers and a loss for the rest (so a 2-seat game with both placed 1st is a draw).
  Under ``wdl`` at an N-seat table only the winner scores ``win``; the others score ``loss``.
- ``draw`` and ``timeout``: every seat draws, whatever places were reported; under ``placement``
  every seat gets the mean of all the table's places; under ``game_score`` each its own score.
- ``forfeit``: the seat(s) with place 1 win, every other seat loses; no seat with place 1 means
  everyone lost (double forfeit). Winners score ``win`` (``placement``: the 1st-place points, not
  shared), losers ``loss`` (``placement``: the last place's points for that table size);
  ``game_score`` keeps each seat's reported score (0 if none). A forfeit counts as a game played.
- ``void``: counts for nothing (no points, no game, no opponent). ``bye``: exactly one seat, scores
  the bye points, differential 0, is not a game played and is not a win.
- Violations (``played``, ``draw``, ``timeout``, ``forfeit``): every violator scores
  ``violation_points`` and is a loss, every non-violator scores ``victim_points`` and is a win;
  differential 0 for everyone at that table. Violation flags on byes and voids are ignored.
  Defaults: ``violation_points`` = the scheme's loss (``wdl`` loss, ``placement`` last place's
  points, ``game_score`` 0); ``victim_points`` = the scheme's win (``wdl`` win, ``placement``
  1st-place points, ``game_score`` the seat's own score).
- Differential: in a decided 2-seat game (one winner, one loser) the magnitude reported on either
  seat (the winner's if both) goes + to the winner and − to the loser (BATTLEBOOKS: 5/+8 vs 0/−8);
  an undecided 2-seat game (shared first place, double forfeit) gives 0. Tables of 3+ seats keep each
  seat's reported differential (0 if none). Draws, timeouts, byes, violation games: 0.
- ``placement`` points: a list by place; places beyond the list score 0. Without a list the
  default is linear for the table's size N: place p scores (N − p) / (N − 1) — [1, 0.5, 0] at
  3 seats, [1, 0] at 2.
- Defaults when a key is absent: scheme ``wdl`` with win 3, draw 1, loss 0; ``bye`` = a win under
  ``wdl``, the 1st-place points under ``placement`` (1 with the default list), 0 under ``game_score``.
- Unknown keys inside ``scoring`` are invalid; keys meaningful only to another scheme are accepted
  and ignored (a preset's scoring block may carry them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.core.errors import InvalidInput, Problem
from app.core.vocabulary import Outcome

OUTCOMES = (Outcome.PLAYED, Outcome.DRAW, Outcome.TIMEOUT, Outcome.FORFEIT, Outcome.VOID, Outcome.BYE)
SCHEMES = ("wdl", "placement", "game_score")
SCORING_KEYS = ("scheme", "win", "draw", "loss", "bye", "points")

WIN, DRAW, LOSS, BYE = "win", "draw", "loss", "bye"


# --------------------------------------------------------------------------- data in


@dataclass(frozen=True)
class SeatResult:
    """One seat's reported result."""

    entry_id: str
    place: int | None
    score: float | None
    differential: float | None = None
    violation: bool = False


@dataclass(frozen=True)
class GameResult:
    """One match's reported result. A bye is a game with one seat and outcome ``bye``."""

    match_id: str
    round: int
    outcome: str
    seats: tuple[SeatResult, ...]
    stage: str | None = None


@dataclass(frozen=True)
class ScoringConfig:
    """A scoring scheme. ``None`` fields take the scheme's default (see the module docstring)."""

    scheme: str = "wdl"
    win: float = 3.0
    draw: float = 1.0
    loss: float = 0.0
    bye: float | None = None
    points: tuple[float, ...] | None = None
    violation_points: float | None = None
    victim_points: float | None = None

    def place_points(self, position: int, table_size: int) -> float:
        """``placement`` points for one position (1-based) at a table of ``table_size`` seats."""
        if self.points is not None:
            return self.points[position - 1] if position <= len(self.points) else 0.0
        if table_size <= 1:
            return 1.0
        return (table_size - position) / (table_size - 1)

    def bye_points(self) -> float:
        if self.bye is not None:
            return self.bye
        if self.scheme == "wdl":
            return self.win
        if self.scheme == "placement":
            return self.points[0] if self.points else 1.0
        return 0.0


# --------------------------------------------------------------------------- data out


@dataclass(frozen=True)
class ScoredSeat:
    """One seat after scoring (a view of ``ScoredGame``). ``order`` ranks the seats of the table
    against each other (lower is better; equal is level); ``place`` is the effective recorded place."""

    entry_id: str
    points: float
    differential: float
    result: str  # win, draw, loss, bye
    order: int
    place: int | None
    score: float | None


@dataclass(slots=True, init=False)
class ScoredGame:
    """One scored game, stored by column (index i = seat i) so large events aggregate quickly.
    Built by ``_scored`` with every column named (see there why not by calling the class)."""

    match_id: str
    round: int
    outcome: str
    entries: tuple[str, ...]
    points: list[float]
    differentials: list[float]
    results: list[str]
    orders: list[int]
    places: list[int] | None
    scores: list[float | None]
    violation: bool
    stage: str | None

    @property
    def seats(self) -> tuple[ScoredSeat, ...]:
        return tuple(
            ScoredSeat(
                e,
                self.points[i],
                self.differentials[i],
                self.results[i],
                self.orders[i],
                self.places[i] if self.places is not None else None,
                self.scores[i],
            )
            for i, e in enumerate(self.entries)
        )


def _scored(
    game: GameResult,
    *,
    entries: tuple[str, ...],
    points: list[float],
    differentials: list[float],
    results: list[str],
    orders: list[int],
    places: list[int] | None,
    scores: list[float | None],
    violation: bool,
) -> ScoredGame:
    """The ``ScoredGame`` of ``game`` (its match id, round, outcome and stage) with these columns.

    Keyword arguments to the class itself would cost a dict per call on CPython 3.11 (calling a
    class packs them; about half again the time of scoring a two-seat game), so the class has no
    ``__init__`` and this fills a bare instance: cheaper than the positional call it replaces."""
    scored = ScoredGame()
    scored.match_id = game.match_id
    scored.round = game.round
    scored.outcome = game.outcome
    scored.entries = entries
    scored.points = points
    scored.differentials = differentials
    scored.results = results
    scored.orders = orders
    scored.places = places
    scored.scores = scores
    scored.violation = violation
    scored.stage = game.stage
    return scored


# --------------------------------------------------------------------------- settings


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def parse_scoring(settings: Mapping[str, Any]) -> tuple[ScoringConfig, list[Problem]]:
    """Read ``scoring``, ``violation_points`` and ``victim_points`` from event settings.

    Returns the config (defaults where a value is absent or invalid) and every problem found.
    """
    problems: list[Problem] = []
    raw = settings.get("scoring", {})
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        problems.append(Problem(("scoring",), "must be an object"))
        raw = {}
    for key in raw:
        if key not in SCORING_KEYS:
            problems.append(Problem(("scoring", str(key)), f"unknown key '{key}'"))
    scheme = raw.get("scheme", "wdl")
    if scheme not in SCHEMES:
        msg = f"unknown scheme {scheme!r}; one of {', '.join(SCHEMES)}"
        problems.append(Problem(("scoring", "scheme"), msg))
        scheme = "wdl"
    numbers: dict[str, float | None] = {"win": 3.0, "draw": 1.0, "loss": 0.0, "bye": None}
    for key in numbers:
        if key in raw and raw[key] is not None:
            if _is_number(raw[key]):
                numbers[key] = float(raw[key])
            else:
                problems.append(Problem(("scoring", key), "must be a finite number"))
    points: tuple[float, ...] | None = None
    if raw.get("points") is not None:
        value = raw["points"]
        if not isinstance(value, list | tuple) or not value:
            problems.append(Problem(("scoring", "points"), "must be a non-empty list of numbers"))
        else:
            bad = [i for i, p in enumerate(value) if not _is_number(p)]
            for i in bad:
                problems.append(Problem(("scoring", "points", i), "must be a finite number"))
            if not bad:
                points = tuple(float(p) for p in value)
    extra: dict[str, float | None] = {"violation_points": None, "victim_points": None}
    for key in extra:
        if settings.get(key) is not None:
            if _is_number(settings[key]):
                extra[key] = float(settings[key])
            else:
                problems.append(Problem((key,), "must be a finite number"))
    config = ScoringConfig(
        scheme=scheme,
        win=numbers["win"] if numbers["win"] is not None else 3.0,
        draw=numbers["draw"] if numbers["draw"] is not None else 1.0,
        loss=numbers["loss"] if numbers["loss"] is not None else 0.0,
        bye=numbers["bye"],
        points=points,
        violation_points=extra["violation_points"],
        victim_points=extra["victim_points"],
    )
    return config, problems


def scoring_config(settings: Mapping[str, Any]) -> ScoringConfig:
    """The scoring config of event settings; ``InvalidInput`` listing every problem."""
    config, problems = parse_scoring(settings)
    if problems:
        raise InvalidInput("invalid scoring settings", problems)
    return config


# --------------------------------------------------------------------------- validation


# The formats whose tables seat the stage's ``table_size`` (a Swiss may add some of one fewer): a
# points-per-place list there is the list of that table. Heats and free-for-alls seat 3–8 as they come.
FIXED_TABLE_FORMATS = frozenset(
    {"round_robin", "swiss", "single_elimination", "double_elimination", "series"}
)


def points_per_seat_problems(settings: Mapping[str, Any], default_table_size: int) -> list[Problem]:
    """A ``placement`` list of points has exactly one value per seat of the table it scores
    (formats.md "Presets": [1, 0] for a 3-seat table is a 422, never a silent 0 for 3rd place).
    Checked for every stage of a fixed table size, against the stage's own scoring or the event's."""
    stages = settings.get("stages")
    problems: dict[tuple[str | int, ...], Problem] = {}
    for i, stage in enumerate(stages if isinstance(stages, list) else []):
        # a format that is not a name (an object, a list) is the settings check's to name, not a crash
        fmt = stage.get("format") if isinstance(stage, Mapping) else None
        if not isinstance(fmt, str) or fmt not in FIXED_TABLE_FORMATS:
            continue
        size = stage.get("table_size", default_table_size)
        own = "scoring" in stage
        scoring = stage.get("scoring") if own else settings.get("scoring")
        if not isinstance(scoring, Mapping) or scoring.get("scheme") != "placement" or type(size) is not int:
            continue
        points = scoring.get("points")
        if not isinstance(points, list | tuple) or not points or len(points) == size:
            continue
        loc: tuple[str | int, ...] = (
            ("settings", "stages", i, "scoring", "points") if own else ("settings", "scoring", "points")
        )
        problems.setdefault(
            loc,
            Problem(
                loc,
                f"{len(points)} value{'s' if len(points) != 1 else ''} for stage {i}'s tables of {size} seats: "
                "a points-per-place list has exactly one value per seat",
            ),
        )
    return list(problems.values())


_TWO_SEAT_OUTCOMES = frozenset({Outcome.PLAYED, Outcome.DRAW, Outcome.TIMEOUT, Outcome.FORFEIT, Outcome.VOID})


def _ok_optional(value: Any) -> bool:
    return value is None or (type(value) in (int, float) and math.isfinite(value))


def game_problems(game: GameResult, loc: tuple[str | int, ...] = ()) -> list[Problem]:
    """Structural problems of one reported game (entry ids are checked by the caller)."""
    seats = game.seats
    if len(seats) == 2 and game.outcome in _TWO_SEAT_OUTCOMES:  # the common case, checked quickly
        a, b = seats
        pa, pb = a.place, b.place
        if (
            a.entry_id != b.entry_id
            and type(pa) is int
            and type(pb) is int
            and pa >= 1
            and pb >= 1
            and _ok_optional(a.score)
            and _ok_optional(b.score)
            and _ok_optional(a.differential)
            and _ok_optional(b.differential)
        ):
            return []
    problems: list[Problem] = []
    if game.outcome not in OUTCOMES:
        problems.append(Problem((*loc, "outcome"), f"unknown outcome {game.outcome!r}"))
        return problems
    if not game.seats:
        problems.append(Problem((*loc, "seats"), "a game needs at least one seat"))
        return problems
    if game.outcome == Outcome.BYE and len(game.seats) != 1:
        problems.append(Problem((*loc, "seats"), "a bye has exactly one seat"))
    if game.outcome not in (Outcome.BYE, Outcome.VOID) and len(game.seats) < 2:
        problems.append(Problem((*loc, "seats"), f"a {game.outcome} game needs at least two seats"))
    seen: set[str] = set()
    for j, seat in enumerate(game.seats):
        if seat.entry_id in seen:
            problems.append(Problem((*loc, "seats", j, "entry_id"), f"entry {seat.entry_id!r} sits twice"))
        seen.add(seat.entry_id)
        if seat.place is not None and (
            not isinstance(seat.place, int) or isinstance(seat.place, bool) or seat.place < 1
        ):
            problems.append(Problem((*loc, "seats", j, "place"), "must be an integer >= 1"))
        for name in ("score", "differential"):
            value = getattr(seat, name)
            if value is not None and not _is_number(value):
                problems.append(Problem((*loc, "seats", j, name), "must be a finite number"))
    if game.outcome == Outcome.PLAYED and len(game.seats) >= 2:
        places = [s.place for s in game.seats]
        if any(p is None for p in places) and not (
            all(p is None for p in places) and all(s.score is not None for s in game.seats)
        ):
            msg = "a played game needs a place for every seat (or a score for every seat)"
            problems.append(Problem((*loc, "seats"), msg))
    return problems


# --------------------------------------------------------------------------- scoring


def effective_places(keys: Sequence[float]) -> list[int]:
    """Competition ranking of sort keys (lower is better): 1 + number of seats strictly ahead."""
    if len(keys) == 2:
        a, b = keys
        return [1, 1] if a == b else ([1, 2] if a < b else [2, 1])
    ordered = sorted(keys)
    first_index: dict[float, int] = {}
    for i, k in enumerate(ordered):
        first_index.setdefault(k, i)
    return [first_index[k] + 1 for k in keys]


def _score_two_wdl(game: GameResult, config: ScoringConfig) -> ScoredGame | None:
    """The common case, written out for speed: a 2-seat ``wdl`` game without violations, with both
    places (or a draw/timeout). Same answers as the general path; ``None`` to fall back to it."""
    a, b = game.seats
    if a.violation or b.violation:
        return None
    outcome = game.outcome
    pa, pb = a.place, b.place
    sa = float(a.score) if a.score is not None else None
    sb = float(b.score) if b.score is not None else None
    # A draw or time-out, or a played game whose two seats share the place, is a draw for both.
    if outcome in (Outcome.DRAW, Outcome.TIMEOUT) or (
        outcome == Outcome.PLAYED and pa is not None and pa == pb
    ):
        places = None if pa is None or pb is None else effective_places((pa, pb))
        return _scored(
            game,
            entries=(a.entry_id, b.entry_id),
            points=[config.draw, config.draw],
            differentials=[0.0, 0.0],
            results=[DRAW, DRAW],
            orders=[1, 1],
            places=places,
            scores=[sa, sb],
            violation=False,
        )
    if outcome != Outcome.PLAYED or pa is None or pb is None:
        return None
    if pa < pb:
        win_d = a.differential if a.differential is not None else b.differential
        m = abs(float(win_d)) if win_d is not None else 0.0
        return _scored(
            game,
            entries=(a.entry_id, b.entry_id),
            points=[config.win, config.loss],
            differentials=[m, 0.0 - m],
            results=[WIN, LOSS],
            orders=[1, 2],
            places=[1, 2],
            scores=[sa, sb],
            violation=False,
        )
    win_d = b.differential if b.differential is not None else a.differential
    m = abs(float(win_d)) if win_d is not None else 0.0
    return _scored(
        game,
        entries=(a.entry_id, b.entry_id),
        points=[config.loss, config.win],
        differentials=[0.0 - m, m],
        results=[LOSS, WIN],
        orders=[2, 1],
        places=[2, 1],
        scores=[sa, sb],
        violation=False,
    )


def score_game(game: GameResult, config: ScoringConfig) -> ScoredGame | None:
    """Score one (valid) game; ``None`` for a void game."""
    outcome = game.outcome
    if outcome == Outcome.VOID:
        return None
    seats = game.seats
    if outcome == Outcome.BYE:
        seat = seats[0]
        return _scored(
            game,
            entries=(seat.entry_id,),
            points=[config.bye_points()],
            differentials=[0.0],
            results=[BYE],
            orders=[1],
            places=None,
            scores=[seat.score],
            violation=False,
        )

    if len(seats) == 2 and config.scheme == "wdl":
        fast = _score_two_wdl(game, config)
        if fast is not None:
            return fast
    return _score_general(game, config)


_Outcomes = tuple[list[str], list[int], list[float]]  # results, orders, points, seat by seat


def _general_places(game: GameResult, scores: list[float | None]) -> list[int] | None:
    """Effective places: the reported ones, else (a played game) the scores' order, else none."""
    raw_places = [s.place for s in game.seats]
    if None not in raw_places:
        return effective_places(raw_places)  # type: ignore[arg-type]
    if game.outcome == Outcome.PLAYED:
        return effective_places([-x for x in scores])  # type: ignore[operator]
    return None


def _win_loss_points(config: ScoringConfig, n: int, own: list[float]) -> tuple[list[float], list[float]]:
    """What a win and a loss score seat by seat under the scheme (``game_score``: the seat's own)."""
    if config.scheme == "wdl":
        return [config.win] * n, [config.loss] * n
    if config.scheme == "placement":
        return [config.place_points(1, n)] * n, [config.place_points(n, n)] * n
    return own, own


def _violation_outcomes(
    seats: Sequence[SeatResult], config: ScoringConfig, win_pts: list[float], loss_pts: list[float]
) -> _Outcomes:
    n = len(seats)
    results = [LOSS if s.violation else WIN for s in seats]
    orders = [2 if s.violation else 1 for s in seats]
    vp, tp = config.violation_points, config.victim_points
    if vp is None:
        vp_list = [0.0] * n if config.scheme == "game_score" else loss_pts
    else:
        vp_list = [vp] * n
    tp_list = win_pts if tp is None else [tp] * n
    points = [vp_list[i] if s.violation else tp_list[i] for i, s in enumerate(seats)]
    return results, orders, points


def _draw_outcomes(n: int, config: ScoringConfig, own: list[float]) -> _Outcomes:
    if config.scheme == "wdl":
        points = [config.draw] * n
    elif config.scheme == "placement":
        points = [sum(config.place_points(p, n) for p in range(1, n + 1)) / n] * n
    else:
        points = list(own)
    return [DRAW] * n, [1] * n, points


def _forfeit_outcomes(seats: Sequence[SeatResult], win_pts: list[float], loss_pts: list[float]) -> _Outcomes:
    winners = [s.place == 1 for s in seats]
    results = [WIN if w else LOSS for w in winners]
    orders = [1 if w else 2 for w in winners]
    points = [win_pts[i] if w else loss_pts[i] for i, w in enumerate(winners)]
    return results, orders, points


def _played_outcomes(places: list[int], config: ScoringConfig, own: list[float]) -> _Outcomes:
    n = len(places)
    first_result = WIN if places.count(1) == 1 else DRAW
    results = [first_result if p == 1 else LOSS for p in places]
    if config.scheme == "wdl":
        table = {WIN: config.win, DRAW: config.draw, LOSS: config.loss}
        points = [table[r] for r in results]
    elif config.scheme == "placement":
        covered: dict[int, int] = {}
        for p in places:
            covered[p] = covered.get(p, 0) + 1
        points = [
            sum(config.place_points(q, n) for q in range(p, p + covered[p])) / covered[p] for p in places
        ]
    else:
        points = list(own)
    return results, places, points


def _decided_differentials(seats: Sequence[SeatResult], results: list[str]) -> list[float]:
    """A decided game's differentials: at 2 seats the reported magnitude, + to the winner and − to
    the loser (0 each when undecided); at 3+ seats each seat's own."""
    n = len(seats)
    diffs = [0.0] * n
    if n != 2:
        return [float(s.differential) + 0.0 if s.differential is not None else 0.0 for s in seats]
    if results[0] != results[1] and DRAW not in results:
        w = 0 if results[0] == WIN else 1
        d = seats[w].differential
        if d is None:
            d = seats[1 - w].differential
        magnitude = abs(float(d)) if d is not None else 0.0
        diffs[w], diffs[1 - w] = magnitude, 0.0 - magnitude
    # else a shared first place or a double forfeit: 0 each, as a draw
    return diffs


def _score_general(game: GameResult, config: ScoringConfig) -> ScoredGame:
    """Any scheme, any table size (not void, not bye)."""
    outcome = game.outcome
    seats = game.seats
    n = len(seats)
    scores: list[float | None] = [float(s.score) if s.score is not None else None for s in seats]
    places = _general_places(game, scores)
    own = [x if x is not None else 0.0 for x in scores]
    win_pts, loss_pts = _win_loss_points(config, n, own)
    violation = any(s.violation for s in seats)
    if violation:
        results, orders, points = _violation_outcomes(seats, config, win_pts, loss_pts)
    elif outcome == Outcome.DRAW or outcome == Outcome.TIMEOUT:
        results, orders, points = _draw_outcomes(n, config, own)
    elif outcome == Outcome.FORFEIT:
        results, orders, points = _forfeit_outcomes(seats, win_pts, loss_pts)
    else:  # played
        assert places is not None
        results, orders, points = _played_outcomes(places, config, own)
    decided = not violation and (outcome == Outcome.PLAYED or outcome == Outcome.FORFEIT)
    diffs = _decided_differentials(seats, results) if decided else [0.0] * n
    return _scored(
        game,
        entries=tuple(s.entry_id for s in seats),
        points=points,
        differentials=diffs,
        results=results,
        orders=orders,
        places=places,
        scores=scores,
        violation=violation,
    )
