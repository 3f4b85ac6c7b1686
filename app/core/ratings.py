"""Elo ratings for 2 and N seats, pools, clamping and titles (battlebooks.md "World rankings";
api.md "Resources" / "Event settings" ``rating``).

The rule
--------
* Expectation is the logistic Elo curve on a 400 scale: ``E(a, b) = 1 / (1 + 10 ** ((Rb - Ra) / 400))``.
  A player's change is ``K * (S - E)``; the new rating is clamped to ``[min, max]`` (0–3000 by default).
  Everyone starts at ``start`` (1500) unless the admin gave the player a starting rating in the pool
  (an imported league rating), which a recompute starts that player from.
* **N seats** (pairwise decomposition): every pair at the table is a mini-game scored by the two
  places (better place 1, equal place 0.5, worse 0); a player's change is the sum over their N − 1
  opponents of ``S − E``, times ``K / (N − 1)``. With two seats this is plain Elo. All expectations
  of one game use the ratings from before that game.
* **Outcomes:** ``draw`` and ``timeout`` rate as a draw for every seat whatever the places; ``forfeit``
  does not rate unless the pool sets ``rate_forfeits`` (then it rates by places); ``void`` and ``bye``
  (a bye is also any game with one seat) never rate.
* **Titles** by threshold: 2500 ``expert``, 2000 ``intermediate``, 1500 ``novice``; below 1500 there is
  no title (``None``).

Pool settings (``RatingPool.settings``, set by the admin; every key optional)
-----------------------------------------------------------------------------
``{"k": 32, "start": 1500, "min": 0, "max": 3000, "period": "game", "rate_forfeits": false}``

* ``k`` is a number, or a schedule by games played: a list of ``[games_limit, K]`` pairs in increasing
  ``games_limit`` whose last limit is ``null``: ``[[30, 40], [null, 20]]`` means K = 40 while the player
  has fewer than 30 rated games in the pool (counted before the game being rated), then K = 20.
* ``period``: ``"game"`` (default) rates every game in the recorded order against the ratings just
  before it. ``"event"`` rates every game of an event against the ratings at the event's start (as FIDE
  rates a rating period) and adds the changes up as they come.

Rulings where the spec is silent
--------------------------------
* Default K is 32 (api.md's settings example). K is per player (a schedule can give the two sides
  different K, so an update is zero-sum only when their K agree and no clamp applies).
* ``period: "event"``: a player's "rating at the event's start" is their rating just before their first
  rated game of that event in the recorded order, and K comes from their games played at that moment.
  The running rating is clamped after every game, so history rows chain (one row's ``after`` is the
  next row's ``before``).
* A played game where a seat has no place is not rated (the result is incomplete).
* Per-character pools (battlebooks.md "World rankings", the ruling on per-hero pools): each seat is
  rated in the pool of the character it played, and counts for the others at its rating in that
  pool just before the game (its pool's start if new there). The pools of one base are therefore
  rated together, in one order (``rate_characters``), each with its own settings. A seat that named
  no character is not rated and counts at 1500 (``DEFAULT_START``).
* Pools an event rates into (``settings["rating"]``): ``pools`` is ``"overall"`` (default),
  ``"character"`` or ``"both"``; ``per_character: true`` alone means ``"both"``; the
  ``battlebooks-roll-call`` preset means ``"character"`` unless ``pools`` says otherwise. The overall
  pool's key is ``rating.pool`` or else the game's key; a character pool's key is
  ``f"{overall_key}:{character}"`` (which is ``f"{game}:{character}"`` unless ``rating.pool`` is set).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.core.vocabulary import Outcome

DEFAULT_K = 32.0
DEFAULT_START = 1500.0
DEFAULT_MIN = 0.0
DEFAULT_MAX = 3000.0
TITLES: tuple[tuple[float, str], ...] = ((2500.0, "expert"), (2000.0, "intermediate"), (1500.0, "novice"))
DRAW_OUTCOMES = frozenset({Outcome.DRAW, Outcome.TIMEOUT})
NEVER_RATED = frozenset({Outcome.VOID, Outcome.BYE})
POOL_MODES = ("overall", "character", "both")
CHARACTER_ONLY_PRESETS = frozenset({"battlebooks-roll-call"})
SETTING_LIMIT = 1_000_000  # a pool's start, min and max, either side of 0
SETTINGS_KEYS = ("k", "start", "min", "max", "period", "rate_forfeits")

_LN10_400 = math.log(10.0) / 400.0


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class PoolConfig:
    """A pool's rating rule. ``k_schedule`` is ``((games_limit | None, K), …)``, last limit None."""

    k_schedule: tuple[tuple[int | None, float], ...] = ((None, DEFAULT_K),)
    start: float = DEFAULT_START
    min_rating: float = DEFAULT_MIN
    max_rating: float = DEFAULT_MAX
    period: str = "game"
    rate_forfeits: bool = False

    def k_for(self, games: int) -> float:
        for limit, k in self.k_schedule:
            if limit is None or games < limit:
                return k
        return self.k_schedule[-1][1]

    @property
    def constant_k(self) -> float | None:
        return self.k_schedule[0][1] if len(self.k_schedule) == 1 else None


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def settings_problems(settings: Any) -> list[tuple[tuple[str | int, ...], str]]:
    """Every problem with a pool settings document, as ``(location, message)``."""
    if not isinstance(settings, dict):
        return [((), "must be an object")]
    out: list[tuple[tuple[str | int, ...], str]] = []
    for key in settings:
        if key not in SETTINGS_KEYS:
            out.append(((key,), f"unknown key {key!r}; allowed: {', '.join(SETTINGS_KEYS)}"))
    if "k" in settings:
        k = settings["k"]
        if _is_num(k):
            if not 0 < k <= 1000:
                out.append((("k",), "must be in (0, 1000]"))
        elif isinstance(k, list) and k:
            last: int | None = 0
            for i, step in enumerate(k):
                if not (isinstance(step, list) and len(step) == 2):
                    out.append((("k", i), "must be a pair [games_limit | null, K]"))
                    continue
                limit, kv = step
                if not (_is_num(kv) and 0 < kv <= 1000):
                    out.append((("k", i, 1), "K must be a number in (0, 1000]"))
                if i == len(k) - 1:
                    if limit is not None:
                        out.append((("k", i, 0), "the last step's games_limit must be null"))
                elif not (isinstance(limit, int) and not isinstance(limit, bool) and limit > 0):
                    out.append((("k", i, 0), "games_limit must be a positive integer"))
                elif last is not None and limit <= last:
                    out.append((("k", i, 0), "games_limits must increase"))
                else:
                    last = limit
        else:
            out.append((("k",), "must be a number or a list of [games_limit | null, K] pairs"))
    for key in ("start", "min", "max"):
        if key in settings and not _is_num(settings[key]):
            out.append(((key,), "must be a number"))
        elif key in settings and abs(settings[key]) > SETTING_LIMIT:
            out.append(((key,), f"must be within ±{SETTING_LIMIT:,}"))
    lo = settings.get("min", DEFAULT_MIN)
    hi = settings.get("max", DEFAULT_MAX)
    st = settings.get("start", DEFAULT_START)
    if _is_num(lo) and _is_num(hi):
        if lo < 0 or hi <= lo:
            out.append((("max",), "must satisfy 0 <= min < max"))
        elif _is_num(st) and not lo <= st <= hi:
            out.append((("start",), f"must lie within [{lo}, {hi}]"))
    if "period" in settings and settings["period"] not in ("game", "event"):
        out.append((("period",), "must be 'game' or 'event'"))
    if "rate_forfeits" in settings and not isinstance(settings["rate_forfeits"], bool):
        out.append((("rate_forfeits",), "must be a boolean"))
    return out


def pool_config(settings: Mapping[str, Any] | None) -> PoolConfig:
    """The config of a (validated) settings document; missing keys take the defaults."""
    s = dict(settings or {})
    k = s.get("k", DEFAULT_K)
    if isinstance(k, list):
        schedule = tuple((None if lim is None else int(lim), float(kv)) for lim, kv in k)
    else:
        schedule = ((None, float(k)),)
    return PoolConfig(
        k_schedule=schedule,
        start=float(s.get("start", DEFAULT_START)),
        min_rating=float(s.get("min", DEFAULT_MIN)),
        max_rating=float(s.get("max", DEFAULT_MAX)),
        period=str(s.get("period", "game")),
        rate_forfeits=bool(s.get("rate_forfeits", False)),
    )


def config_settings(cfg: PoolConfig) -> dict[str, Any]:
    """The full settings document of a config (what GET shows)."""
    k: Any = cfg.constant_k if cfg.constant_k is not None else [list(step) for step in cfg.k_schedule]
    return {
        "k": k,
        "start": cfg.start,
        "min": cfg.min_rating,
        "max": cfg.max_rating,
        "period": cfg.period,
        "rate_forfeits": cfg.rate_forfeits,
    }


def title(rating: float) -> str | None:
    for threshold, name in TITLES:
        if rating >= threshold:
            return name
    return None


def expectation(ra: float, rb: float) -> float:
    """Expected score of a player rated ``ra`` against one rated ``rb`` (logistic, 400 scale)."""
    return 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))


def clamp(value: float, cfg: PoolConfig) -> float:
    return cfg.min_rating if value < cfg.min_rating else cfg.max_rating if value > cfg.max_rating else value


# --------------------------------------------------------------------------- pools of an event


@dataclass(frozen=True)
class PoolPlan:
    """Which pools an event rates into: the overall pool and/or per-character pools."""

    overall: str | None
    character_base: str | None

    def keys_for(self, characters: Iterable[str | None]) -> list[str]:
        keys: list[str] = []
        if self.overall is not None:
            keys.append(self.overall)
        if self.character_base is not None:
            for c in characters:
                if c:
                    key = character_pool(self.character_base, c)
                    if key not in keys:
                        keys.append(key)
        return keys


def character_pool(base: str, character: str) -> str:
    return f"{base}:{character}"


def pool_plan(game_key: str, preset: str | None, settings: Mapping[str, Any] | None) -> PoolPlan | None:
    """The pools of an event, or None when the event is not rated (``settings.rated`` not true)."""
    s = settings or {}
    if s.get("rated") is not True:
        return None
    rating = s.get("rating") if isinstance(s.get("rating"), dict) else {}
    assert isinstance(rating, dict)
    base = rating.get("pool") if isinstance(rating.get("pool"), str) and rating.get("pool") else game_key
    mode = rating.get("pools")
    if mode not in POOL_MODES:
        if preset in CHARACTER_ONLY_PRESETS:
            mode = "character"
        elif rating.get("per_character") is True:
            mode = "both"
        else:
            mode = "overall"
    return PoolPlan(
        overall=base if mode in ("overall", "both") else None,
        character_base=base if mode in ("character", "both") else None,
    )


def seed_settings(event_settings: Mapping[str, Any] | None) -> dict[str, Any]:
    """Settings for a pool first created by an event: its ``rating.k/start/period`` where valid."""
    rating = (event_settings or {}).get("rating")
    out: dict[str, Any] = {}
    if isinstance(rating, dict):
        for key in ("k", "start", "period"):
            if key in rating:
                out[key] = rating[key]
    return out if not settings_problems(out) else {}


# --------------------------------------------------------------------------- one game


def game_scores(places: Sequence[int], draw: bool) -> list[float]:
    """Each seat's summed pairwise score against the others (win 1, tie 0.5, loss 0)."""
    n = len(places)
    if draw:
        return [0.5 * (n - 1)] * n
    return [
        sum(1.0 if pi < pj else 0.5 if pi == pj else 0.0 for j, pj in enumerate(places) if j != i)
        for i, pi in enumerate(places)
    ]


def game_deltas(
    ratings: Sequence[float], places: Sequence[int], ks: Sequence[float], draw: bool
) -> list[float]:
    """The rating change of every seat of one game (pairwise decomposition, K / (N − 1))."""
    n = len(ratings)
    scores = game_scores(places, draw)
    out = []
    for i, ri in enumerate(ratings):
        expected = sum(expectation(ri, rj) for j, rj in enumerate(ratings) if j != i)
        out.append(ks[i] / (n - 1) * (scores[i] - expected))
    return out


def rateable(outcome: str | None, seats: int, places: Sequence[int | None], cfg: PoolConfig) -> bool:
    """Whether a confirmed game changes ratings at all (byes, voids and, by default, forfeits do not)."""
    if seats < 2 or outcome in NEVER_RATED:
        return False
    if outcome == Outcome.FORFEIT and not cfg.rate_forfeits:
        return False
    if outcome in DRAW_OUTCOMES:
        return True
    return all(p is not None for p in places)


def rated_places(places: Sequence[int | None], violations: Sequence[bool]) -> list[int | None]:
    """The places a game is rated by: as reported, unless a seat broke a rule — then every violator
    ranks below every other seat, as they score (formats.md "Violations")."""
    if any(violations):
        return [2 if violator else 1 for violator in violations]
    return list(places)


@dataclass(frozen=True)
class SeatOutcome:
    """What a rated game was for one seat (a player's page, docs/web.md "Rating pages"): between two
    seats ``win``, ``draw`` or ``loss``; at a bigger table ``place``, the seat's place (one more than
    the seats placed above it), how many seats share it, and the table's size."""

    kind: str
    place: int
    shared: int
    field: int


def seat_outcome(places: Sequence[int | None], seat: int, draw: bool) -> SeatOutcome:
    """The game as rated (``rated_places``, ``draw`` for a draw or timeout) for the seat at index
    ``seat``: every seat of a draw shares the first place."""
    n = len(places)
    mine = places[seat]
    if draw or mine is None:
        ahead, shared = 0, n
    else:
        ahead = sum(1 for p in places if p is not None and p < mine)
        shared = sum(1 for p in places if p == mine)
    if n == 2:
        kind = "draw" if shared == 2 else "win" if ahead == 0 else "loss"
    else:
        kind = "place"
    return SeatOutcome(kind, ahead + 1, shared, n)


# --------------------------------------------------------------------------- a stream of games


@dataclass
class PoolState:
    """Ratings and games played by player index; the fast path works on these plain lists."""

    ratings: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    # period "event": (period key, player) -> (rating, games) at the player's first game of the period
    snapshots: dict[tuple[Any, int], tuple[float, int]] = field(default_factory=dict)


@dataclass
class History:
    """Flat history in rating order: one row per rated seat."""

    game: array[int] = field(default_factory=lambda: array("q"))
    player: array[int] = field(default_factory=lambda: array("q"))
    before: array[float] = field(default_factory=lambda: array("d"))
    after: array[float] = field(default_factory=lambda: array("d"))

    def __len__(self) -> int:
        return len(self.game)


# A game for the fast path: (game index, period key, player indices, places, rated mask | None, draw).
# ``places`` may be anything when ``draw`` is true; a mask (one bool per seat) marks the seats whose
# rating the game changes (per-character pools); None means every seat.
StreamGame = tuple[int, Any, Sequence[int], Sequence[int], Sequence[bool] | None, bool]


def rate_stream(
    games: Iterable[StreamGame], cfg: PoolConfig, state: PoolState, history: History | None = None
) -> History:
    """Rate ``games`` in order over ``state`` (mutated), appending one history row per rated seat.

    The hot loop for two-seat games avoids every allocation it can; it gives the same numbers as
    ``game_deltas`` (the same formula in the same order of operations).
    """
    hist = history if history is not None else History()
    h_game, h_player, h_before, h_after = hist.game, hist.player, hist.before, hist.after
    R, G = state.ratings, state.games
    lo, hi = cfg.min_rating, cfg.max_rating
    kc = cfg.constant_k
    k_for = cfg.k_for
    by_event = cfg.period == "event"
    snaps = state.snapshots
    for gi, period, ps, places, mask, draw in games:
        n = len(ps)
        if n == 2 and mask is None and not by_event:
            a, b = ps
            ra = R[a]
            rb = R[b]
            ea = 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))
            if draw:
                sa = 0.5
            else:
                pa, pb = places
                sa = 1.0 if pa < pb else 0.5 if pa == pb else 0.0
            if kc is None:
                ka = k_for(G[a])
                kb = k_for(G[b])
            else:
                ka = kb = kc
            eb = 1.0 / (1.0 + 10.0 ** ((ra - rb) / 400.0))
            na = ra + ka * (sa - ea)
            nb = rb + kb * ((1.0 - sa) - eb)
            na = lo if na < lo else hi if na > hi else na
            nb = lo if nb < lo else hi if nb > hi else nb
            R[a] = na
            R[b] = nb
            G[a] += 1
            G[b] += 1
            h_game.append(gi)
            h_player.append(a)
            h_before.append(ra)
            h_after.append(na)
            h_game.append(gi)
            h_player.append(b)
            h_before.append(rb)
            h_after.append(nb)
            continue
        # General path: N seats, masks, rating periods.
        if by_event:
            base = []
            ks = []
            for p in ps:
                snap = snaps.get((period, p))
                if snap is None:
                    snap = (R[p], G[p])
                    snaps[(period, p)] = snap
                rating_then, games_then = snap  # at the player's first game of the period
                base.append(rating_then)
                ks.append(kc if kc is not None else k_for(games_then))
        else:
            base = [R[p] for p in ps]
            ks = [kc if kc is not None else k_for(G[p]) for p in ps]
        deltas = game_deltas(base, places, ks, draw)
        for i, p in enumerate(ps):
            if mask is not None and not mask[i]:
                continue
            before = R[p]
            after = before + deltas[i]
            after = lo if after < lo else hi if after > hi else after
            R[p] = after
            G[p] += 1
            h_game.append(gi)
            h_player.append(p)
            h_before.append(before)
            h_after.append(after)
    return hist


# --------------------------------------------------------------------------- readable front end


@dataclass(frozen=True)
class RatedGame:
    """One game for ``rate_games``: players in seat order with their places."""

    match_id: str
    players: tuple[str, ...]
    places: tuple[int | None, ...]
    outcome: str | None = Outcome.PLAYED
    period: str = ""
    rated: tuple[bool, ...] | None = None


@dataclass(frozen=True)
class HistoryRow:
    match_id: str
    player_id: str
    before: float
    after: float


@dataclass(frozen=True)
class RatingRun:
    ratings: dict[str, float]
    games: dict[str, int]
    history: list[HistoryRow]


def rate_games(
    games: Iterable[RatedGame], cfg: PoolConfig, starts: Mapping[str, float] | None = None
) -> RatingRun:
    """Rate ``games`` in order from scratch (``starts`` gives players' starting ratings)."""
    starts = starts or {}
    index: dict[str, int] = {}
    names: list[str] = []
    state = PoolState()

    def idx(player: str) -> int:
        i = index.get(player)
        if i is None:
            i = index[player] = len(names)
            names.append(player)
            state.ratings.append(float(starts.get(player, cfg.start)))
            state.games.append(0)
        return i

    kept: list[RatedGame] = []
    stream: list[StreamGame] = []
    for g in games:
        if not rateable(g.outcome, len(g.players), g.places, cfg):
            continue
        ps = [idx(p) for p in g.players]
        places = [p if p is not None else 0 for p in g.places]
        stream.append((len(kept), g.period, ps, places, g.rated, g.outcome in DRAW_OUTCOMES))
        kept.append(g)
    hist = rate_stream(stream, cfg, state)
    rows = [
        HistoryRow(kept[hist.game[i]].match_id, names[hist.player[i]], hist.before[i], hist.after[i])
        for i in range(len(hist))
    ]
    played = {names[i]: g for i, g in enumerate(state.games)}
    return RatingRun(
        ratings={names[i]: r for i, r in enumerate(state.ratings)},
        games=played,
        history=rows,
    )


# --------------------------------------------------------------------------- per-character pools


@dataclass(frozen=True)
class CharacterGame:
    """One game of a base's per-character pools: players in seat order, the character each played
    (None: none named), their places."""

    match_id: str
    players: tuple[str, ...]
    characters: tuple[str | None, ...]
    places: tuple[int | None, ...]
    outcome: str | None = Outcome.PLAYED
    period: Any = ""


@dataclass
class CharacterPool:
    """One character's pool as ``rate_characters`` leaves it: its players (the state's and the
    history's indexes), their ratings and games, and its history (games index ``match_ids``)."""

    config: PoolConfig
    players: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    state: PoolState = field(default_factory=PoolState)
    history: History = field(default_factory=History)

    def player(self, pid: str, starts: Mapping[str, float]) -> int:
        i = self.index.get(pid)
        if i is None:
            i = self.index[pid] = len(self.players)
            self.players.append(pid)
            self.state.ratings.append(float(starts.get(pid, self.config.start)))
            self.state.games.append(0)
        return i


@dataclass
class CharacterRun:
    pools: dict[str, CharacterPool]
    match_ids: list[str]


def rate_characters(
    games: Iterable[CharacterGame],
    configs: Mapping[str, PoolConfig],
    starts: Mapping[str, Mapping[str, float]] | None = None,
) -> CharacterRun:
    """Rate a base's per-character pools together, game after game: every seat in the pool of the
    character it played, against the others at their ratings in the pools of theirs. ``configs``
    and ``starts`` are by character (a character without a config takes the defaults)."""
    starts = starts or {}
    pools: dict[str, CharacterPool] = {}
    match_ids: list[str] = []

    def pool(c: str) -> CharacterPool:
        found = pools.get(c)
        if found is None:
            found = pools[c] = CharacterPool(configs.get(c, PoolConfig()))
        return found

    for g in games:
        n = len(g.players)
        seats = [
            (pool(c), pool(c).player(p, starts.get(c, {}))) if c else None
            for p, c in zip(g.players, g.characters, strict=True)
        ]
        rated = [s is not None and rateable(g.outcome, n, g.places, s[0].config) for s in seats]
        if not any(rated):
            continue
        base: list[float] = []
        ks: list[float] = []
        for s in seats:
            if s is None:
                base.append(DEFAULT_START)
                ks.append(0.0)
                continue
            cp, i = s
            cfg, st = cp.config, cp.state
            rating_then, games_then = st.ratings[i], st.games[i]
            if cfg.period == "event":  # at the player's first game of the period, in this pool
                rating_then, games_then = st.snapshots.setdefault((g.period, i), (rating_then, games_then))
            base.append(rating_then)
            ks.append(cfg.k_for(games_then))
        places = [p if p is not None else 0 for p in g.places]
        deltas = game_deltas(base, places, ks, g.outcome in DRAW_OUTCOMES)
        gi = len(match_ids)
        match_ids.append(g.match_id)
        for s, ok, delta in zip(seats, rated, deltas, strict=True):
            if s is None or not ok:
                continue
            cp, i = s
            before = cp.state.ratings[i]
            after = clamp(before + delta, cp.config)
            cp.state.ratings[i] = after
            cp.state.games[i] += 1
            h = cp.history
            h.game.append(gi)
            h.player.append(i)
            h.before.append(before)
            h.after.append(after)
    return CharacterRun(pools, match_ids)
