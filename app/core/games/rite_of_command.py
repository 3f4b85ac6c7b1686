"""Rite of Command: card catalogs, dealing, play checking and combat adjudication.

Implements rite-of-command.md (seed 001_32258aad52ba4831): "Cards (a catalog, data not code)",
"Dealing and play" and "Combat, ring by ring, after all cards are played"; the HTTP shapes are
api.md's `POST /v1/rite-of-command/deal` and `POST /v1/adjudicate/rite-of-command`.
The catalog's cards, shape and validation are in ``rite_of_command_catalog.py``.

Rulings of the spec, followed exactly:
- Arming: each soldier, leftmost first and whoever owns it, takes the largest number of weapons its
  hands can hold and, among such choices, the leftmost set; owners of weapons do not matter.
- Game: whoever wins two or more rings wins and takes both wagers; otherwise it is a draw and each
  wager goes back.

Rulings taken here, where the spec is silent:
- Tags, weapon types, hand types and condition tags compare case-insensitively (kept lower case);
  card names are exact. A tag may not start with "non-" (it would read as a negated condition).
- A soldier's condition must test the opponent ("vs ..."); only weapons may test the wielder.
- A power without a condition is X (the first number) against everyone.
- A card name names one card: a name used twice in a catalog (soldier or weapon) is a problem.
- A catalog needs at least one card; a hand type that no weapon has is a problem ("any" always fits).
- A card may carry a free-text "note" and the catalog a "name" and a "note" (documentation only);
  any other unknown key is a problem, never silently ignored.
- Dealing draws the deck_size cards with replacement from the catalog (the catalog lists kinds of
  card, a deck may hold two Clubs), 1 <= deck_size <= 100; `cards` lists them in catalog order.
  Each player's order is its own shuffle of those cards; when the deck has two different cards,
  player 2's order is reshuffled (same stream) until it differs from player 1's.
- Every draw comes from app/core/rng.py streams "rite-of-command:deal:cards",
  "rite-of-command:deal:order:1", "rite-of-command:deal:order:2" and "rite-of-command:deal:first".
- A match's first player is its deal's (``first_seat``): the seat its round marks as holding the
  first token is the deal's first player, never a second draw (rite-of-command.md "In a match").
- A full record {deal, first_player, plays} is checked play by play: the first player moves first and
  turns alternate strictly; a play may name its `card`, which must then be the top card of that
  player's deck; the ring is 1, 2 or 3; every card must be played (a short record is rejected, as is
  a play after all cards are played). The deal is either the deal endpoint's answer (`orders`, the
  two orders must hold the same cards, and `cards` when given) or `{deck_size, seed}`, dealt again
  here (in a match, the seed defaults to the match's seed; given both, the orders must be the ones
  dealt; with orders and no seed, the orders stand); if `first_player` is given in both the
  deal and the record they must agree.
- The adjudicate input gives either `rings` or a full record, never both. Bad input names the first
  problem (an unknown card, a ring out of 1-3, an owner or player not 1 or 2) as InvalidInput with its
  loc; a play out of turn or not the top card is a RuleViolation of rule "dealing-and-play"; a bad
  catalog lists every problem, in document order.
- Weapons no soldier takes do nothing. A weapon's "vs TAG" tests the soldier its wielder fights.
- Fights: each fight records both powers; a soldier with no opponent left is never tired further.
  Positions (0-based, in the ring's soldier line) are returned alongside names, since a deck may hold
  two soldiers of the same name.
- Wagers are {"1": stake, "2": stake}; a stake is a number >= 0 or a text (e.g. "20 linen"). The
  settlement names where each stake goes and, when both are numbers, what each player receives.
- In a match (adjudicate_match), the score of a seat is the number of rings its player won.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Annotated, Any, Literal, Required

from annotated_types import Ge, Len, MinLen
from typing_extensions import TypedDict

from app.core import rng
from app.core.errors import InvalidInput, Problem, RuleViolation
from app.core.games.adjudication import Adjudication, SeatOutcome, record_keys
from app.core.games.rite_of_command_catalog import MAX_HANDS as MAX_HANDS
from app.core.games.rite_of_command_catalog import (
    Catalog,
    Loc,
    RiteOfCommandCatalog,
    Soldier,
    Text,
    Weapon,
    _fmt,
    _is_int,
    catalog_from,
)
from app.core.games.rite_of_command_catalog import load_catalog as load_catalog
from app.core.games.rite_of_command_catalog import sample_catalog as sample_catalog
from app.core.games.rite_of_command_catalog import sample_catalog_data as sample_catalog_data

MAX_DECK_SIZE = 100
RINGS = 3
FATIGUE = 3
PLAYERS = (1, 2)

# --- the record's shape --------------------------------------------------------------------------
# The parser reads these keys (the catalog's, in rite_of_command_catalog.py, and the record's own:
# no others); they are the OpenAPI document's schema of a Rite of Command ``game_log``.
Player = Literal[1, 2]


class RiteOfCommandPlaced(TypedDict):
    """A card played into a ring, by its owner."""

    card: str
    owner: Player


Deck = Annotated[list[str], MinLen(1)]
RiteOfCommandOrders = TypedDict("RiteOfCommandOrders", {"1": Deck, "2": Deck}, closed=True)
Stake = Annotated[float, Ge(0)] | Text
RiteOfCommandWagers = TypedDict("RiteOfCommandWagers", {"1": Stake, "2": Stake}, closed=True)


class RiteOfCommandDeal(TypedDict, total=False):
    """The deal: the deal endpoint's answer {cards, orders, first_player}, or {deck_size, seed}."""

    cards: list[str]
    orders: RiteOfCommandOrders
    deck_size: int
    seed: Text
    first_player: Player | None


class RiteOfCommandPlay(TypedDict, total=False):
    player: Required[Player]
    ring: Required[Literal[1, 2, 3]]
    card: str | None


class RiteOfCommandLog(TypedDict, total=False, closed=True):
    """A Rite of Command record: the three rings as played, or the full record {deal, first_player,
    plays}; the catalog (else the sample one) and the wagers optional."""

    catalog: RiteOfCommandCatalog | None
    rings: Annotated[list[list[RiteOfCommandPlaced]], Len(RINGS, RINGS)]
    deal: RiteOfCommandDeal
    first_player: Player | None
    plays: list[RiteOfCommandPlay]
    wagers: RiteOfCommandWagers | None


# --- dealing -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Deal:
    cards: tuple[str, ...]
    orders: dict[int, tuple[str, ...]]  # player -> deck, top card first
    first_player: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "cards": list(self.cards),
            "orders": {str(p): list(self.orders[p]) for p in PLAYERS},
            "first_player": self.first_player,
        }


def deal(catalog: Catalog, deck_size: int, seed: str) -> Deal:
    """The same deck_size cards for both players in different orders, and a random first player."""
    if not _is_int(deck_size) or not 1 <= deck_size <= MAX_DECK_SIZE:
        raise InvalidInput(
            f"deck_size must be a whole number from 1 to {MAX_DECK_SIZE}",
            [Problem(("deck_size",), f"must be a whole number from 1 to {MAX_DECK_SIZE}")],
        )
    draw = rng.stream(seed, "rite-of-command:deal:cards")
    picked = [draw.choice(catalog.order) for _ in range(deck_size)]
    rank = {name: i for i, name in enumerate(catalog.order)}
    cards = tuple(sorted(picked, key=rank.__getitem__))
    orders: dict[int, tuple[str, ...]] = {}
    for player in PLAYERS:
        stream = rng.stream(seed, f"rite-of-command:deal:order:{player}")
        order = list(cards)
        stream.shuffle(order)
        while player == 2 and len(set(cards)) > 1 and tuple(order) == orders[1]:
            stream.shuffle(order)
        orders[player] = tuple(order)
    return Deal(cards, orders, first_player(seed))


def first_player(seed: str) -> int:
    """The deal's first player (1 or 2), drawn from its own stream of the seed: the same for every
    deck size, so a match's first player is known before its deck is chosen."""
    return int(rng.stream(seed, "rite-of-command:deal:first").choice(PLAYERS))


def first_seat(seed: str, seats: int) -> int | None:
    """The registry seam: the match's seat that plays first, its deal's first player (player 1 is
    seat 0); ``None`` for a table that is no duel."""
    return first_player(seed) - 1 if seats == len(PLAYERS) else None


# --- plays -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Placed:
    """A card in a ring, with the player who played it."""

    card: str
    owner: int


def _player(value: Any, loc: Loc) -> int:
    if not _is_int(value) or value not in PLAYERS:
        raise InvalidInput(f"{_fmt(loc)}: must be 1 or 2", [Problem(loc, "must be 1 or 2")])
    assert isinstance(value, int)
    return value


def _known(catalog: Catalog, name: Any, loc: Loc) -> str:
    if not isinstance(name, str) or catalog.card(name) is None:
        raise InvalidInput(f"{_fmt(loc)}: unknown card {name!r}", [Problem(loc, f"unknown card {name!r}")])
    return name


def parse_rings(catalog: Catalog, raw: Any) -> list[list[Placed]]:
    """The `rings` input: three lists of {card, owner} in the order played into that ring."""
    if not isinstance(raw, list) or len(raw) != RINGS:
        raise InvalidInput("rings: exactly three rings", [Problem(("rings",), "give exactly three rings")])
    rings: list[list[Placed]] = []
    for r, ring in enumerate(raw):
        if not isinstance(ring, list):
            raise InvalidInput(
                f"rings[{r}]: a ring is a list", [Problem(("rings", r), "a ring is a list of {card, owner}")]
            )
        placed = []
        for i, item in enumerate(ring):
            loc: Loc = ("rings", r, i)
            if not isinstance(item, Mapping):
                raise InvalidInput(
                    f"{_fmt(loc)}: expected {{card, owner}}", [Problem(loc, "expected {card, owner}")]
                )
            placed.append(
                Placed(
                    _known(catalog, item.get("card"), (*loc, "card")),
                    _player(item.get("owner"), (*loc, "owner")),
                )
            )
        rings.append(placed)
    return rings


def parse_deal(catalog: Catalog, raw: Any, seed: str | None = None) -> Deal:
    """The record's deal: the deal endpoint's answer, or {deck_size, seed} dealt again here."""
    loc: Loc = ("deal",)
    if not isinstance(raw, Mapping):
        raise InvalidInput(
            "deal: expected an object", [Problem(loc, "expected {cards, orders} or {deck_size, seed}")]
        )
    redealt: Deal | None = None
    # dealt again from {deck_size, seed} (the match's seed when the record names none), and checked
    # against the orders when they are given too; the orders alone when there is no seed to deal from
    deal_seed = raw.get("seed") or seed
    orders_given = raw.get("orders") is not None
    if raw.get("deck_size") is not None and (deal_seed is not None or not orders_given):
        if not isinstance(deal_seed, str) or not deal_seed:
            raise InvalidInput(
                "deal.seed: the seed to deal from is needed", [Problem((*loc, "seed"), "required")]
            )
        try:
            redealt = deal(catalog, raw["deck_size"], deal_seed)
        except InvalidInput as exc:
            raise InvalidInput(
                f"deal.{exc.detail}", [Problem((*loc, *p.loc), p.msg) for p in exc.problems]
            ) from None
        if not orders_given:
            first = raw.get("first_player")
            if first is not None and _player(first, (*loc, "first_player")) != redealt.first_player:
                raise InvalidInput(
                    "deal.first_player: does not match the deal",
                    [Problem((*loc, "first_player"), f"the deal's first player is {redealt.first_player}")],
                )
            return redealt
    orders_raw = raw.get("orders")
    if not isinstance(orders_raw, Mapping) or set(map(str, orders_raw)) != {"1", "2"}:
        raise InvalidInput(
            'deal.orders: expected {"1": [...], "2": [...]}',
            [Problem((*loc, "orders"), 'expected the two players\' orders {"1": [...], "2": [...]}')],
        )
    orders: dict[int, tuple[str, ...]] = {}
    for key, value in orders_raw.items():
        p = int(key)
        at: Loc = (*loc, "orders", str(key))
        if not isinstance(value, list) or not value:
            raise InvalidInput(
                f"{_fmt(at)}: expected a list of cards", [Problem(at, "expected a list of cards")]
            )
        orders[p] = tuple(_known(catalog, c, (*at, i)) for i, c in enumerate(value))
    if sorted(orders[1]) != sorted(orders[2]):
        raise InvalidInput(
            "deal.orders: the two players must hold the same cards",
            [Problem((*loc, "orders"), "the two players' decks must hold exactly the same cards")],
        )
    if "cards" in raw:
        cards = raw["cards"]
        if not isinstance(cards, list) or sorted(map(str, cards)) != sorted(orders[1]):
            raise InvalidInput(
                "deal.cards: do not match the orders",
                [Problem((*loc, "cards"), "the dealt cards must be the cards of each order")],
            )
    first = raw.get("first_player")
    given = Deal(
        tuple(sorted(orders[1])), orders, _player(first, (*loc, "first_player")) if first is not None else 0
    )
    if redealt is not None and (
        redealt.orders != given.orders or (first is not None and given.first_player != redealt.first_player)
    ):
        raise InvalidInput(
            "deal: the orders are not the ones dealt from this seed",
            [Problem((*loc, "orders"), "not the orders dealt from deck_size and seed")],
        )
    return redealt or given


def replay(catalog: Catalog, the_deal: Deal, first_player: int, plays: Any) -> list[list[Placed]]:
    """Check a record against the deal, play by play, and return the rings it builds."""
    if not isinstance(plays, list):
        raise InvalidInput(
            "plays: expected a list", [Problem(("plays",), "expected a list of {player, ring}")]
        )
    decks = {p: list(the_deal.orders[p]) for p in PLAYERS}
    rings: list[list[Placed]] = [[] for _ in range(RINGS)]
    turn = first_player
    for i, play in enumerate(plays):
        loc: Loc = ("plays", i)
        if not isinstance(play, Mapping):
            raise InvalidInput(
                f"plays[{i}]: expected {{player, ring}}", [Problem(loc, "expected {player, ring}")]
            )
        player = _player(play.get("player"), (*loc, "player"))
        ring = play.get("ring")
        if not isinstance(ring, int) or isinstance(ring, bool) or not 1 <= ring <= RINGS:
            raise InvalidInput(
                f"plays[{i}].ring: ring {ring!r} is out of range (1 to 3)",
                [Problem((*loc, "ring"), f"ring {ring!r} is out of range: rings are 1, 2 and 3")],
            )
        if not decks[turn]:
            raise RuleViolation("dealing-and-play", f"plays[{i}]: every card has already been played")
        if player != turn:
            raise RuleViolation(
                "dealing-and-play",
                f"plays[{i}]: player {player} played out of turn; it is player {turn}'s turn",
            )
        top = decks[turn][0]
        card = play.get("card")
        if card is not None and card != top:
            raise RuleViolation(
                "dealing-and-play",
                f"plays[{i}]: player {player} played {card!r}, not the top card of their deck ({top!r})",
            )
        decks[turn].pop(0)
        rings[ring - 1].append(Placed(top, player))
        turn = 3 - turn
    left = len(decks[1]) + len(decks[2])
    if left:
        raise InvalidInput(
            f"plays: the record ends with {left} cards not played",
            [Problem(("plays",), f"every card must be played; {left} cards are left")],
        )
    return rings


# --- combat ------------------------------------------------------------------------------------
@dataclass
class Armed:
    position: int  # in the ring's soldier line
    soldier: Soldier
    owner: int
    weapons: list[Weapon] = field(default_factory=list)

    def power_against(self, opponent: Armed, wins: int) -> int:
        own = self.soldier.rating_against(opponent.soldier)
        gear = sum(w.power.value(self.soldier.tags, opponent.soldier.tags) for w in self.weapons)
        return own + gear - FATIGUE * wins


def _holdable(hands: Sequence[str], weapons: Sequence[Weapon]) -> bool:
    """Can each of these weapons go into its own hand of an allowed type?"""
    return any(
        all(w.fits(hands[h]) for w, h in zip(weapons, slots, strict=True))
        for slots in permutations(range(len(hands)), len(weapons))
    )


def arm(soldiers: Sequence[tuple[Soldier, int]], weapons: Sequence[Weapon]) -> list[Armed]:
    """Soldiers choose in line order; each takes the largest set its hands can hold, the leftmost set.

    Sets of weapons that the hands can hold form a (transversal) matroid, so taking each weapon left
    to right whenever the set stays holdable yields a largest set, and the leftmost of them.
    """
    free = list(range(len(weapons)))
    armed = []
    for position, (soldier, owner) in enumerate(soldiers):
        taken: list[int] = []
        for index in free:
            if len(taken) == len(soldier.hands):
                break
            if _holdable(soldier.hands, [weapons[j] for j in (*taken, index)]):
                taken.append(index)
        free = [j for j in free if j not in taken]
        armed.append(Armed(position, soldier, owner, [weapons[j] for j in taken]))
    return armed


@dataclass(frozen=True)
class Fight:
    p1: Armed
    p2: Armed
    p1_power: int
    p2_power: int
    winner: int


@dataclass(frozen=True)
class RingVerdict:
    armed: list[Armed]
    fights: list[Fight]
    winner: int | None

    def as_dict(self, number: int) -> dict[str, Any]:
        return {
            "ring": number,
            "armed": [
                {
                    "soldier": a.soldier.name,
                    "owner": a.owner,
                    "weapons": [w.name for w in a.weapons],
                    "position": a.position,
                }
                for a in self.armed
            ],
            "fights": [
                {
                    "p1": f.p1.soldier.name,
                    "p2": f.p2.soldier.name,
                    "p1_power": f.p1_power,
                    "p2_power": f.p2_power,
                    "winner": f.winner,
                    "p1_position": f.p1.position,
                    "p2_position": f.p2.position,
                }
                for f in self.fights
            ],
            "winner": self.winner,
        }


def resolve_ring(catalog: Catalog, cards: Sequence[Placed]) -> RingVerdict:
    """Arming, then fights until one side has no soldiers, then the ring's winner."""
    soldiers = [(catalog.soldiers[c.card], c.owner) for c in cards if c.card in catalog.soldiers]
    weapons = [catalog.weapons[c.card] for c in cards if c.card in catalog.weapons]
    armed = arm(soldiers, weapons)
    sides = {p: [a for a in armed if a.owner == p] for p in PLAYERS}
    wins = {a.position: 0 for a in armed}
    fights = []
    while sides[1] and sides[2]:
        one, two = sides[1][0], sides[2][0]
        p1_power = one.power_against(two, wins[one.position])
        p2_power = two.power_against(one, wins[two.position])
        if p1_power != p2_power:
            winner = 1 if p1_power > p2_power else 2
        else:
            winner = 1 if one.position < two.position else 2
        fights.append(Fight(one, two, p1_power, p2_power, winner))
        wins[(one if winner == 1 else two).position] += 1
        sides[3 - winner].pop(0)
    standing = [p for p in PLAYERS if sides[p]]
    return RingVerdict(armed, fights, standing[0] if standing else None)


# --- the game ----------------------------------------------------------------------------------
def parse_wagers(raw: Any) -> dict[int, int | float | str] | None:
    if raw is None:
        return None
    loc: Loc = ("wagers",)
    if not isinstance(raw, Mapping) or set(map(str, raw)) != {"1", "2"}:
        raise InvalidInput(
            'wagers: expected {"1": stake, "2": stake}',
            [Problem(loc, 'expected each player\'s stake: {"1": stake, "2": stake}')],
        )
    stakes: dict[int, int | float | str] = {}
    for key, value in raw.items():
        at: Loc = (*loc, str(key))
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        if numeric and not (value >= 0 and value != float("inf")):
            raise InvalidInput(
                f"{_fmt(at)}: a stake is a number >= 0", [Problem(at, "a stake is a number >= 0")]
            )
        if not numeric and not (isinstance(value, str) and value.strip()):
            raise InvalidInput(
                f"{_fmt(at)}: a stake is a number >= 0 or a text",
                [Problem(at, "a stake is a number >= 0 or a non-empty text")],
            )
        stakes[int(key)] = value
    return stakes


def settle(stakes: Mapping[int, int | float | str], winner: int | None) -> dict[str, Any]:
    """The winner takes both wagers; on a draw each wager goes back (spec ruling)."""
    goes_to = {p: (winner if winner is not None else p) for p in PLAYERS}
    out: dict[str, Any] = {
        "stakes": {str(p): stakes[p] for p in PLAYERS},
        "goes_to": {str(p): goes_to[p] for p in PLAYERS},
        "payouts": None,
    }
    values = [stakes[p] for p in PLAYERS]
    if all(not isinstance(v, str) for v in values):
        out["payouts"] = {
            str(p): sum(v for q, v in stakes.items() if goes_to[q] == p and not isinstance(v, str))
            for p in PLAYERS
        }
    return out


@dataclass(frozen=True)
class Verdict:
    rings: list[RingVerdict]
    winner: int | None
    wagers: dict[str, Any] | None = None

    @property
    def rings_won(self) -> dict[int, int]:
        return {p: sum(1 for r in self.rings if r.winner == p) for p in PLAYERS}

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rings": [r.as_dict(i + 1) for i, r in enumerate(self.rings)],
            "winner": self.winner,
            "rings_won": {str(p): n for p, n in self.rings_won.items()},
        }
        if self.wagers is not None:
            out["wagers"] = self.wagers
        return out


def adjudicate(
    catalog: Catalog, rings: Sequence[Sequence[Placed]], stakes: Mapping[int, int | float | str] | None = None
) -> Verdict:
    """Resolve the three rings; two or more rings win the game, anything else is a draw."""
    verdicts = [resolve_ring(catalog, ring) for ring in rings]
    won = {p: sum(1 for v in verdicts if v.winner == p) for p in PLAYERS}
    winner = next((p for p in PLAYERS if won[p] >= 2), None)
    return Verdict(verdicts, winner, settle(stakes, winner) if stakes is not None else None)


def adjudicate_log(game_log: Any, seed: str | None = None) -> Verdict:
    """The adjudicate endpoint's body: {catalog?, rings | (deal, first_player, plays), wagers?}."""
    if not isinstance(game_log, Mapping):
        raise InvalidInput("game_log: expected an object", [Problem((), "expected an object")])
    allowed = record_keys(RiteOfCommandLog)
    unknown = [k for k in game_log if k not in allowed]
    if unknown:
        raise InvalidInput(
            f"{unknown[0]}: unknown field", [Problem((str(k),), "unknown field") for k in unknown]
        )
    catalog = catalog_from(game_log)
    stakes = parse_wagers(game_log.get("wagers"))
    record = any(k in game_log for k in ("deal", "first_player", "plays"))
    if ("rings" in game_log) == record:
        raise InvalidInput(
            "give either rings or a full record {deal, first_player, plays}",
            [Problem(("rings",), "give either rings or a full record {deal, first_player, plays}, not both")],
        )
    if "rings" in game_log:
        rings = parse_rings(catalog, game_log["rings"])
    else:
        the_deal = parse_deal(catalog, game_log.get("deal"), seed)
        raw_first = game_log.get("first_player")
        if raw_first is None and not the_deal.first_player:
            raise InvalidInput("first_player: required", [Problem(("first_player",), "required (1 or 2)")])
        first = _player(raw_first, ("first_player",)) if raw_first is not None else the_deal.first_player
        if the_deal.first_player and first != the_deal.first_player:
            raise RuleViolation(
                "dealing-and-play",
                f"first_player: the deal gives the first turn to player {the_deal.first_player}",
            )
        rings = replay(catalog, the_deal, first, game_log.get("plays"))
    return adjudicate(catalog, rings, stakes)


def adjudicate_match(game_log: dict[str, Any], seats: int, seed: str) -> Adjudication:
    """The registry seam: player 1 is the match's seat 0, player 2 is seat 1."""
    if seats != 2:
        raise InvalidInput(
            f"Rite of Command is played by 2 seats, not {seats}",
            [Problem(("seats",), "Rite of Command is played by exactly 2 seats")],
        )
    verdict = adjudicate_log(game_log, seed)
    won = verdict.rings_won
    if verdict.winner is None:
        places = {1: 1, 2: 1}
    else:
        places = {verdict.winner: 1, 3 - verdict.winner: 2}
    return Adjudication(
        outcome="played" if verdict.winner is not None else "draw",
        seats=[SeatOutcome(seat=p - 1, place=places[p], score=float(won[p])) for p in PLAYERS],
        details=verdict.as_dict(),
    )
