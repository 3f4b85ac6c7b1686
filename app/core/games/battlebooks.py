"""BATTLEBOOKS Swiss presets: Clash of the Champions, Hero's Roll Call, Secret Wars (battlebooks.md
"Common rules", "battlebooks-clash", "battlebooks-roll-call", "battlebooks-secret-wars").

What lives here (pure): the presets as settings documents, the number of game rounds / games from the
player count, the hero rule, the blind packs drawn from the organizer's catalog, and the score card
(every game with its running totals and the round scores).

The three presets are one Swiss stage played with ``pairing: adjacent`` (1–2, 3–4, … down the
standings, the bye to the last) and ``avoid_rematches: false`` (the seed pairs rematches), scored
``wdl`` 5/2/0 with the body-point differential, tie-break chain ``["differential"]``:

- Clash / Secret Wars: ``block`` 3 (a game round is 3 games); the stage plays
  ``3 × game_rounds(N) + 1`` rounds, the last being the **Final Battle** — paired 1–2, 3–4 by the
  total so far, which is exactly the stage's adjacent pairing; a ``playoff`` stage follows for the
  one-game playoff when first place is still shared on points and differential.
- Roll Call: ``block`` 1, ``3 × game_rounds(N)`` games + the Final Battle; no playoff.

Rulings where the spec is silent:
- The Final Battle is the last round of the same Swiss stage (not a stage of its own) so that the
  stage's standings are the Final Score (all rounds + the Final Battle) and the playoff stage takes
  the entries still sharing first place. It is recognised as the last round when the stage plays
  ``block × k + 1`` rounds; a stage whose ``rounds`` the organizer set to a multiple of the block
  has no Final Battle.
- Game rounds for fewer than 8 players (a non-sanctioned override) are 2, as for 8:
  ``game_rounds(N) = max(2, ceil(N / 8) + 1)``.
- Clash ordering "by cumulative score": the score card's score is points/differential (5/+8), so
  the pairing order is points, then differential (Roll Call says so explicitly); entries equal on
  both are listed by name (the engine's order inside a shared rank).
- Hero rule inside a game round: game 2 must use the book not used in game 1; games 1 and 3 may use
  either book. A game without a hero (a bye, a forfeit, a void) constrains nothing: after a bye in
  game 1, game 2 may use either book, and game 3 may use either book even if only one was played.
  The Final Battle and a playoff game use either book (as game 3). A correction of game 1 is checked
  against game 2 of the same round the same way.
- A played, drawn or timed-out result must name every seat's hero, except where the rule leaves one
  choice (game 2 after game 1; the Roll Call's one hero): then it is filled in. Score cards "must be
  filled out completely" to be rated.
- Heroes are declared before a game (the guide fills them in on the card before play): a seat's
  player or the organizer declares it on the pending match, checked by the hero rule then. A
  declared hero fills in a result that names none; a result naming another is refused
  (``battlebooks.hero.declared``) until the result is confirmed, whose correction may change it.
- Roll Call: each entry registers exactly one hero; Clash: exactly two different books (checked at
  start, every offending entry named). Books named at registration are never overwritten.
- Packs (Secret Wars) are assigned at registration: recorded as handed out (the entry's two
  ``characters``: two different catalog books, a pair no other entry holds) or, when none are
  named, drawn: every unordered pair of distinct catalog books, in catalog order, shuffled with the
  event seed's stream ``battlebooks:packs``, the first pair no entry holds yet (so without recorded
  packs the k-th entry in registration order gets the k-th pair). A catalog with ``b`` books makes
  ``b·(b−1)/2`` packs; a registration when all are handed out is a 422 naming ``settings.catalog``.
  The packs are sealed — shown to the organizer only — until the event starts, which publishes
  game 1's pairings; the start checks them again against the catalog (it may have changed).
- Only sanctioned presets rate: an event of these presets with ``rated: true`` but
  ``sanctioned: false`` refuses to start (422 naming ``settings.rated``). Clash and Secret Wars rate
  into the overall pool, Roll Call into the per-hero pool only (core/ratings.py ``pool_plan``).
- Score card sign-offs: the organizer signs a game by recording its result (a report, the
  confirmation of the players' agreeing claims, a ruling, a correction); the player has signed when
  their own last claim is the result on the card. The Swiss presets have players' agreeing claims
  wait for the organizer's confirmation (the guide: the organizer records the results; players do
  not mark their own cards).
- Score card: the Final Score is all the round scores plus the Final Battle; a playoff game is
  shown apart (its own list, its own running total), never added to it.
- Times: ``game_minutes`` (15) applies to every game but the Final Battle, which is untimed unless
  ``final_minutes`` (at least 15, as the guide requires) is set; the score card shows each game's limit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any

from app.core import rng
from app.core.errors import InvalidInput, Problem, RuleViolation

BLOCK = 3  # games per game round (Clash, Secret Wars)
# A hero's body points are a few dozen; results and Battle Royal records keep them within these
# bounds (a differential within twice that), so every sum of them stays finite.
BODY_POINTS_LIMIT = 10_000

# A sample catalog so the Secret Wars preset runs out of the box; organizers give their own
# ``settings.catalog`` (the books they have on the table).
SAMPLE_CATALOG: tuple[str, ...] = (
    "Captain America",
    "Wolverine",
    "Spider-Man",
    "Hulk",
    "Thor",
    "Iron Man",
    "Storm",
    "Cyclops",
    "Daredevil",
    "Silver Surfer",
    "Punisher",
    "Venom",
)

_SCORING = {"scheme": "wdl", "win": 5, "draw": 2, "loss": 0, "bye": 5}


def _swiss_stage(block: int, name: str) -> dict[str, Any]:
    return {
        "format": "swiss",
        "name": name,
        "table_size": 2,
        "pairing": "adjacent",
        "first_round": "random",
        "avoid_rematches": False,
        "bye": "lowest_score",
        "block": block,
    }


def _preset(block: int, stage_name: str, playoff: bool, **extra: Any) -> dict[str, Any]:
    stages = [_swiss_stage(block, stage_name)]
    if playoff:
        stages.append({"format": "playoff", "name": "Playoff", "table_size": 2})
    return {
        "stages": stages,
        "scoring": dict(_SCORING),
        "tiebreaks": ["differential"],
        "sanctioned": True,
        "rated": True,
        "game_minutes": 15,
        **extra,
    }


# The catalog's game the BATTLEBOOKS presets (here and in battlebooks_royal.py) set up events of
# (registry.py ``events_of``; a preset on another game's event is a 422: app/core/presets.py).
GAME = "battlebooks"


PRESETS: dict[str, dict[str, Any]] = {
    "battlebooks-clash": _preset(BLOCK, "Game rounds and Final Battle", True),
    "battlebooks-roll-call": _preset(1, "Games and Final Battle", False),
    "battlebooks-secret-wars": _preset(
        BLOCK, "Game rounds and Final Battle", True, catalog=list(SAMPLE_CATALOG)
    ),
}
CLASH_LIKE = frozenset({"battlebooks-clash", "battlebooks-secret-wars"})
SEALED = "battlebooks-secret-wars"  # packs sealed until game 1's pairings
ONE_HERO = frozenset({"battlebooks-roll-call"})


# --------------------------------------------------------------------------- rounds by player count


def game_rounds(players: int) -> int:
    """Clash game rounds: 2 for 8 players, one more per further 8 (9–16 → 3, 17–24 → 4, …)."""
    return max(2, math.ceil(players / 8) + 1)


def roll_call_games(players: int) -> int:
    """Roll Call games before the Final Battle: 6 for 8, 9 for 9–16, 12 for 17–24, …"""
    return 3 * game_rounds(players)


def stage_rounds(preset: str, players: int) -> int:
    """Pairing rounds of the Swiss stage, the Final Battle included."""
    if preset in ONE_HERO:
        return roll_call_games(players) + 1
    return BLOCK * game_rounds(players) + 1


@dataclass(frozen=True)
class Position:
    """Where a pairing round sits: game round ``block_no`` (1-based) and game ``game`` (1-based) in
    it, or the Final Battle (``final``: block_no and game are None)."""

    index: int
    block_no: int | None
    game: int | None
    final: bool


def position(index: int, rounds: int, block: int) -> Position:
    """Position of the stage's ``index``-th round (0-based) in a stage of ``rounds`` rounds."""
    if rounds > 1 and index == rounds - 1 and (rounds - 1) % block == 0:
        return Position(index, None, None, True)
    return Position(index, index // block + 1, index % block + 1, False)


# --------------------------------------------------------------------------- the hero rule

RULE_BOOK = "battlebooks.hero.book"
RULE_OTHER = "battlebooks.hero.game2"
RULE_NAMED = "battlebooks.hero.named"
RULE_ONE = "battlebooks.hero.one"
RULE_DECLARED = "battlebooks.hero.declared"


def check_declared(name: str, declared: str | None, character: str | None) -> str | None:
    """A result's hero against the one declared before the game: the declared hero fills in a
    result that names none; a result naming another is refused."""
    if declared is None or character is None:
        return character if declared is None else declared
    if character != declared:
        raise RuleViolation(
            RULE_DECLARED,
            f"{name} declared {declared!r} before the game, not {character!r}; "
            "the organizer corrects a declaration by correcting the confirmed result",
        )
    return character


def check_hero(
    name: str,
    books: Sequence[str],
    character: str | None,
    game: int | None,
    block_heroes: Mapping[int, str | None],
    required: bool = True,
) -> str | None:
    """The hero of one seat under the Clash rule; raises RuleViolation naming the rule.

    ``books``: the entry's two books; ``game``: 1..3 in the game round, None for the Final Battle or
    a playoff (either book); ``block_heroes``: the entry's heroes in the other games of the same
    game round (game number → hero, None when that game had no hero). Returns the hero, filled in
    when the rule leaves one choice.
    """
    first = block_heroes.get(1)
    second = block_heroes.get(2)
    forced: str | None = None
    if game == 2 and first in books:
        forced = next((b for b in books if b != first), None)
    elif game == 1 and second in books:
        forced = next((b for b in books if b != second), None)
    if character is None:
        if forced is not None or not required:
            return forced
        raise RuleViolation(
            RULE_NAMED,
            f"{name}'s hero must be named (one of {', '.join(books)}); score cards are filled out completely",
        )
    if character not in books:
        raise RuleViolation(
            RULE_BOOK, f"{name} plays {character!r}, not one of the two books brought: {', '.join(books)}"
        )
    if forced is not None and character != forced:
        other = first if game == 2 else second
        raise RuleViolation(
            RULE_OTHER,
            f"{name} played {other!r} in game {1 if game == 2 else 2} of this game round; "
            f"game 2 is played with the other book, {forced!r}",
        )
    return character


def check_one_hero(name: str, books: Sequence[str], character: str | None) -> str:
    """Roll Call: the one hero registered for the whole event (filled in when omitted)."""
    hero = books[0]
    if character is not None and character != hero:
        raise RuleViolation(RULE_ONE, f"{name} plays {hero!r} for the whole event, not {character!r}")
    return hero


def registration_problems(
    preset: str, entries: Sequence[tuple[str, str, Sequence[str]]], catalog: Sequence[str] = ()
) -> list[Problem]:
    """Entries ``(id, name, characters)`` whose heroes do not fit the preset (Clash: two different
    books; Roll Call: one hero; Secret Wars: a pack of the catalog, no two alike)."""
    problems: list[Problem] = []
    for n, (entry_id, name, chars) in enumerate(entries):
        loc = ("entries", entry_id, "characters")
        if preset in ONE_HERO and len(chars) != 1:
            problems.append(Problem(loc, f"{name} must register exactly one hero (has {len(chars)})"))
        elif preset == "battlebooks-clash" and (len(chars) != 2 or chars[0] == chars[1]):
            problems.append(
                Problem(loc, f"{name} must register two different books (has {', '.join(chars) or 'none'})")
            )
        elif preset == SEALED:
            earlier = [c for _, _, c in entries[:n]]
            problems.extend(
                Problem(p.loc, f"{name}: {p.msg}") for p in pack_problems(catalog, chars, earlier, loc)
            )
    return problems


# --------------------------------------------------------------------------- blind packs


def catalog_problem(catalog: Any) -> str | None:
    """Validation of ``settings.catalog``: a list of at least two distinct book names."""
    if not isinstance(catalog, list) or not all(isinstance(b, str) and b.strip() for b in catalog):
        return "must be a list of book names"
    if len(catalog) < 2:
        return "needs at least two books (a pack is two different books)"
    if len(set(catalog)) != len(catalog):
        return "names a book twice"
    return None


def pack_count(books: int) -> int:
    return books * (books - 1) // 2


def _seeded_pairs(catalog: Sequence[str], seed: str) -> list[tuple[str, str]]:
    pairs = list(combinations(catalog, 2))
    rng.stream(seed, "battlebooks:packs").shuffle(pairs)
    return pairs


def next_pack(catalog: Sequence[str], seed: str, taken: Iterable[Sequence[str]]) -> tuple[str, str]:
    """A pack drawn at registration: the first pair of the seeded order that no entry holds yet
    (so entries registered one by one get the same packs as ``draw_packs``)."""
    held = {frozenset(p) for p in taken}
    err = catalog_problem(list(catalog))
    if err is None:
        for pair in _seeded_pairs(catalog, seed):
            if frozenset(pair) not in held:
                return pair
        err = f"{len(catalog)} books make {pack_count(len(catalog))} different packs; all are handed out"
    raise InvalidInput(
        f"the catalog cannot make another pack: {err}", [Problem(("settings", "catalog"), err)]
    )


def pack_problems(
    catalog: Sequence[str],
    characters: Sequence[str],
    taken: Iterable[Sequence[str]],
    loc: tuple[str | int, ...],
) -> list[Problem]:
    """A pack recorded as handed out: two different books of the catalog, a pair no other entry holds."""
    if len(characters) != 2 or characters[0] == characters[1]:
        return [Problem(loc, f"a pack is two different books of the catalog, not {', '.join(characters)}")]
    problems = [
        Problem((*loc, i), f"{book!r} is not in the catalog ({', '.join(catalog)})")
        for i, book in enumerate(characters)
        if book not in catalog
    ]
    if not problems and frozenset(characters) in {frozenset(p) for p in taken}:
        problems.append(
            Problem(loc, f"another entry holds the pack {' + '.join(characters)}; packs are all different")
        )
    return problems


def draw_packs(catalog: Sequence[str], players: int, seed: str) -> list[tuple[str, str]]:
    """``players`` blind packs of two different books, no two packs the same pair."""
    err = catalog_problem(list(catalog))
    if err is None and pack_count(len(catalog)) < players:
        err = (
            f"{len(catalog)} books make {pack_count(len(catalog))} different packs; "
            f"{players} entries need {players}"
        )
    if err is not None:
        raise InvalidInput(
            f"the catalog cannot make the packs: {err}", [Problem(("settings", "catalog"), err)]
        )
    return _seeded_pairs(catalog, seed)[:players]


# --------------------------------------------------------------------------- score cards


@dataclass(frozen=True)
class SignOff:
    """Who signed a game's result on the score card, and when."""

    by: str
    at: datetime


@dataclass(frozen=True)
class HistoryStep:
    """One step of a match's result history (a report, a claim, a confirmation, …)."""

    action: str
    actor: str
    payload: Mapping[str, Any]
    at: datetime


RESULT_ACTIONS = ("report", "confirm", "ruling", "correction")


def _result_of(payload: Mapping[str, Any]) -> tuple[Any, Any]:
    return payload.get("outcome"), payload.get("seats")


def sign_offs(
    history: Sequence[HistoryStep], entry_id: str, player: str
) -> tuple[SignOff | None, SignOff | None]:
    """The player's and the organizer's sign-off of a game's result, from its history in order.

    The organizer signs the result by recording it (a report, a confirmation of the players'
    claims, a ruling, a correction): the last such step, when the organizer (or the admin) took it.
    The player has signed when their own last claim is that very result; a claim the organizer
    then overruled or corrected is not a signature of the result on the card.
    """
    final = next((h for h in reversed(history) if h.action in RESULT_ACTIONS), None)
    if final is None:
        return None, None
    organizer = None
    if not final.actor.startswith("entry:") and final.actor != "players":
        organizer = SignOff(final.actor, final.at)
    claim = next(
        (h for h in reversed(history) if h.action == "claim" and h.actor == f"entry:{entry_id}"), None
    )
    signed = claim is not None and _result_of(claim.payload) == _result_of(final.payload)
    return (SignOff(player, claim.at) if signed and claim is not None else None), organizer


@dataclass(frozen=True)
class CardGame:
    """One game of an entry, as the score card needs it (already scored)."""

    round: int  # the event's round number
    stage: int
    index: int  # 0-based position among the stage's rounds
    table: int
    status: str  # pending, reported, disputed, confirmed, bye
    outcome: str | None
    opponent_id: str | None
    opponent: str | None
    hero: str | None
    opponent_hero: str | None
    points: float | None  # None while not final
    differential: float | None
    result: str | None  # win, draw, loss, bye
    first_token: bool
    player_sign_off: SignOff | None = None
    organizer_sign_off: SignOff | None = None


@dataclass
class CardRow:
    round: int
    stage: int
    label: str  # "Round 1 · Game 2", "Game 4", "Final Battle", "Playoff"
    game_round: int | None
    game: int | None
    final: bool
    table: int
    status: str
    outcome: str | None
    opponent_id: str | None
    opponent: str | None
    hero: str | None
    opponent_hero: str | None
    first_token: bool
    result: str | None
    points: float | None
    differential: float | None
    score: str | None  # "5/+8"
    total_points: float
    total_differential: float
    minutes: int | None
    player_sign_off: SignOff | None = None
    organizer_sign_off: SignOff | None = None


@dataclass
class RoundScore:
    game_round: int
    points: float
    differential: float
    games: int
    complete: bool


@dataclass
class ScoreCard:
    """``rows``: the games of the Swiss stage (every game round and the Final Battle), whose totals
    are the Final Score; ``playoff``: the playoff games, apart, with running totals of their own."""

    rows: list[CardRow] = field(default_factory=list)
    rounds: list[RoundScore] = field(default_factory=list)
    final_battle: CardRow | None = None
    total_points: float = 0.0
    total_differential: float = 0.0
    playoff: list[CardRow] = field(default_factory=list)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def score_text(points: float | None, differential: float | None) -> str | None:
    """The card's game score: ``5/+8``, ``0/-8``, ``2/0``."""
    if points is None:
        return None
    d = differential or 0.0
    sign = "+" if d > 0 else ""
    return f"{_num(points)}/{sign}{_num(d)}"


def score_card(
    games: Sequence[CardGame],
    rounds_in_stage: Mapping[int, int],
    block: int,
    game_minutes: int | None,
    final_minutes: int | None,
) -> ScoreCard:
    """Every game in round order with running totals; round scores per block of the first stage.

    ``rounds_in_stage`` maps a stage index to its number of rounds (for spotting the Final Battle);
    stages after the first are playoffs: their games are listed apart and their points are not
    part of the Final Score (the rounds plus the Final Battle).
    """
    card = ScoreCard()
    blocks: dict[int, RoundScore] = {}
    playoff_points = playoff_differential = 0.0
    for g in sorted(games, key=lambda g: g.round):
        if g.stage == 0:
            pos = position(g.index, rounds_in_stage.get(0, 0), block)
            final = pos.final
            if final:
                label = "Final Battle"
            elif block > 1:
                label = f"Round {pos.block_no} · Game {pos.game}"
            else:
                label = f"Game {g.index + 1}"
            game_round = pos.block_no if block > 1 else None
            game_no = pos.game if block > 1 else None
            minutes = final_minutes if final else game_minutes
        else:
            label, game_round, game_no, final, minutes = "Playoff", None, None, False, final_minutes
        if g.stage != 0:
            if g.points is not None:
                playoff_points += g.points
                playoff_differential += g.differential or 0.0
        elif g.points is not None:
            card.total_points += g.points
            card.total_differential += g.differential or 0.0
        row = CardRow(
            round=g.round,
            stage=g.stage,
            label=label,
            game_round=game_round,
            game=game_no,
            final=final,
            table=g.table,
            status=g.status,
            outcome=g.outcome,
            opponent_id=g.opponent_id,
            opponent=g.opponent,
            hero=g.hero,
            opponent_hero=g.opponent_hero,
            first_token=g.first_token,
            result=g.result,
            points=g.points,
            differential=g.differential,
            score=score_text(g.points, g.differential),
            total_points=card.total_points if g.stage == 0 else playoff_points,
            total_differential=card.total_differential if g.stage == 0 else playoff_differential,
            minutes=minutes,
            player_sign_off=g.player_sign_off,
            organizer_sign_off=g.organizer_sign_off,
        )
        if g.stage != 0:
            card.playoff.append(row)
            continue
        card.rows.append(row)
        if final:
            card.final_battle = row
        if game_round is not None:
            rs = blocks.setdefault(game_round, RoundScore(game_round, 0.0, 0.0, 0, True))
            rs.games += 1
            if g.points is None:
                rs.complete = False
            else:
                rs.points += g.points
                rs.differential += g.differential or 0.0
    for rs in blocks.values():
        rs.complete = rs.complete and rs.games == block
    card.rounds = [blocks[k] for k in sorted(blocks)]
    return card
