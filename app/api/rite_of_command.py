"""Rite of Command's stateless tools (api.md "Stateless tools"): deal decks and adjudicate a game (its
body declared here, ``VERDICT_ROUTE``; app/api/verdicts.py makes the route).

No token, no state. Every rule lives in app/core/games/rite_of_command.py; this module only parses,
calls the core and shapes the answer. The schemas document the shapes and their types are strict
(`true` is not a number, "1" is not a player); the core checks the rules (unknown cards, ring
numbers, turns, catalogs — a catalog as a whole, every problem listed) and its errors become
problem+json in app/api/problems.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.json_schema import JsonDict

from app.api.schemas import StrictTypes
from app.api.verdicts import RiteVerdict, VerdictRoute
from app.core.games import rite_of_command as roc

router = APIRouter(tags=["rite-of-command"])


# --- catalog ---------------------------------------------------------------------------------
# The bounds of every value (api.md "Limits"): a card's name and a text, a card's power, the cards of
# a catalog, and what one game can hold (each player plays at most a deck of MAX_DECK_SIZE cards).
CARD_NAME = 100
TEXT = 1000
POWER = 1_000
CATALOG_CARDS = 500
GAME_CARDS = 2 * roc.MAX_DECK_SIZE
Power = Annotated[int, Field(ge=-POWER, le=POWER)]
Word = Annotated[str, Field(max_length=CARD_NAME)]
# The catalog's checker (roc.load_catalog) words its own refusals; the patterns are the document's:
# a name, a tag, a hand or a weapon type shows a character, a condition follows its grammar.
_SHOWN: JsonDict = {"pattern": r"\S"}
Shown = Annotated[str, Field(max_length=CARD_NAME, json_schema_extra=_SHOWN)]
_CONDITION = r"^\s*([Vv][Ss]|[Ii][Ff] [Ww][Ii][Ee][Ll][Dd][Ee][Rr] [Ii][Ss])\s+([Nn][Oo][Nn]-)?\s*[^\s]"


class SoldierCard(StrictTypes):
    name: str = Field(max_length=CARD_NAME, json_schema_extra=_SHOWN)
    tags: list[Shown] = Field(default_factory=list, max_length=16, description="e.g. ['priest']")
    hands: list[Shown] = Field(
        default_factory=list,
        max_length=roc.MAX_HANDS,
        description="0 to 3 hands, each 'any' or a weapon type (e.g. 'blunt')",
    )
    power: list[Power] = Field(
        min_length=2, max_length=2, description="[X, Y]: X when the condition holds, else Y"
    )
    condition: str | None = Field(
        default=None,
        max_length=CARD_NAME,
        description="'vs TAG' or 'vs non-TAG'",
        json_schema_extra={"pattern": r"^\s*[Vv][Ss]\s+([Nn][Oo][Nn]-)?\s*[^\s]"},
    )
    note: str | None = Field(default=None, max_length=TEXT)


class WeaponCard(StrictTypes):
    name: str = Field(max_length=CARD_NAME, json_schema_extra=_SHOWN)
    type: str = Field(
        max_length=CARD_NAME, description="e.g. 'blunt', 'blade', 'vehicle'", json_schema_extra=_SHOWN
    )
    power: list[Power] = Field(
        min_length=2, max_length=2, description="[X, Y]: X when the condition holds, else Y"
    )
    condition: str | None = Field(
        default=None,
        max_length=CARD_NAME,
        description="'vs TAG', 'vs non-TAG', 'if wielder is TAG' or 'if wielder is non-TAG'",
        json_schema_extra={"pattern": _CONDITION},
    )
    note: str | None = Field(default=None, max_length=TEXT)


class CatalogIn(StrictTypes):
    """A card catalog; without one, the shipped sample catalog is used."""

    # at least one card, a soldier or a weapon
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [{"properties": {key: {"minItems": 1}}} for key in ("soldiers", "weapons")]
        }
    )

    name: str | None = Field(default=None, max_length=200)
    note: str | None = Field(default=None, max_length=TEXT)
    soldiers: list[SoldierCard] = Field(max_length=CATALOG_CARDS)
    weapons: list[WeaponCard] = Field(max_length=CATALOG_CARDS)


def _whole_catalog(value: Any) -> Any:
    """A catalog is checked as a whole by the core, which lists every problem — the shape errors
    and the semantic ones (a duplicate name, a hand no weapon fits) — in document order; only a
    catalog it accepts reaches the shape check of the schema."""
    if value is not None:
        roc.load_catalog(value)  # InvalidInput listing every problem
    return value


# --- deal ------------------------------------------------------------------------------------
class DealCreate(StrictTypes):
    deck_size: int = Field(ge=1, le=roc.MAX_DECK_SIZE)
    seed: str | None = Field(
        default=None, min_length=1, max_length=200, description="omitted: a fresh seed, returned"
    )
    catalog: CatalogIn | None = None

    _catalog = field_validator("catalog", mode="before")(_whole_catalog)


class DealRead(BaseModel):
    cards: list[str]
    orders: dict[str, list[str]] = Field(description='{"1": [...], "2": [...]}, top card first')
    first_player: int
    seed: str
    deck_size: int


# a player is 1 or 2: the schema says so, while the model's looser bounds leave the refusal to the
# checker, which words it with its place in the record
_PLAYER: JsonDict = {"minimum": 1, "maximum": 2}
# a stake, as parse_wagers takes it: a number >= 0 or a text that shows a character
_STAKE: JsonDict = {
    "anyOf": [
        {"type": "number", "minimum": 0, "maximum": 10**12},
        {"type": "string", "maxLength": 200, "pattern": r"\S"},
    ]
}


# --- adjudicate ------------------------------------------------------------------------------
class RingCard(StrictTypes):
    card: str = Field(max_length=CARD_NAME)
    owner: int = Field(ge=-POWER, le=POWER, description="1 or 2", json_schema_extra=_PLAYER)


_ORDER: JsonDict = {"type": "array", "minItems": 1}
# a property a variant requires, given and not null (the field's own schema types it: a variant that
# restated it, an inline object or an array without items, is one a client generator cannot read)
_GIVEN: JsonDict = {"not": {"type": "null"}}


class DealIn(StrictTypes):
    """The deal endpoint's answer ({cards?, orders, first_player?}) or {deck_size, seed} to deal again."""

    # as parse_deal reads it: {deck_size, seed} dealt again, or both players' orders, each a list
    # of cards; whether the cards are the catalog's and the same in both is the checker's
    model_config = ConfigDict(
        json_schema_extra={
            "anyOf": [
                {
                    "required": ["deck_size", "seed"],
                    "properties": {
                        "deck_size": {"type": "integer"},
                        "seed": {"type": "string", "minLength": 1},
                    },
                },
                {
                    "required": ["orders"],
                    "properties": {"orders": _GIVEN},
                },
            ]
        }
    )

    cards: list[Word] | None = Field(default=None, max_length=GAME_CARDS)
    orders: (
        dict[Annotated[str, Field(max_length=8)], Annotated[list[Word], Field(max_length=GAME_CARDS)]] | None
    ) = Field(
        default=None,
        max_length=4,
        json_schema_extra={
            "required": ["1", "2"],
            "properties": {"1": _ORDER, "2": _ORDER},
            "additionalProperties": False,
        },
    )
    first_player: int | None = Field(default=None, ge=-POWER, le=POWER, json_schema_extra=_PLAYER)
    deck_size: int | None = Field(
        default=None, ge=-POWER, le=POWER, json_schema_extra={"minimum": 1, "maximum": roc.MAX_DECK_SIZE}
    )
    seed: str | None = Field(default=None, max_length=200)


class PlayIn(StrictTypes):
    player: int = Field(ge=-POWER, le=POWER, description="1 or 2", json_schema_extra=_PLAYER)
    ring: int = Field(
        ge=-POWER, le=POWER, description="1, 2 or 3", json_schema_extra={"minimum": 1, "maximum": roc.RINGS}
    )
    card: str | None = Field(
        default=None, max_length=CARD_NAME, description="optional; checked against the top card"
    )


class AdjudicateRite(StrictTypes):
    # either the rings or a full record {deal, first_player?, plays}, not both (adjudicate_log)
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["rings"],
                    "properties": {"rings": _GIVEN},
                    "not": {"anyOf": [{"required": [k]} for k in ("deal", "first_player", "plays")]},
                },
                {
                    "not": {"required": ["rings"]},
                    "required": ["deal", "plays"],
                    "properties": {"deal": _GIVEN, "plays": _GIVEN},
                },
            ]
        }
    )

    catalog: CatalogIn | None = None
    rings: list[Annotated[list[RingCard], Field(max_length=GAME_CARDS)]] | None = Field(
        default=None,
        max_length=8,
        description="three rings; cards in the order played into that ring",
        json_schema_extra={"minItems": roc.RINGS, "maxItems": roc.RINGS},
    )
    deal: DealIn | None = None
    first_player: int | None = Field(default=None, ge=-POWER, le=POWER, json_schema_extra=_PLAYER)
    plays: list[PlayIn] | None = Field(default=None, max_length=2 * GAME_CARDS)
    wagers: (
        dict[
            Annotated[str, Field(max_length=8)],
            Annotated[int, Field(ge=-(10**12), le=10**12)]
            | Annotated[float, Field(ge=-1e12, le=1e12)]
            | Annotated[str, Field(max_length=200)],
        ]
        | None
    ) = Field(
        default=None,
        max_length=4,
        description='{"1": stake, "2": stake}; a number >= 0 or a text',
        json_schema_extra={
            "required": ["1", "2"],
            "properties": {"1": _STAKE, "2": _STAKE},
            "additionalProperties": False,
        },
    )

    _catalog = field_validator("catalog", mode="before")(_whole_catalog)


VERDICT_ROUTE = VerdictRoute(
    "rite-of-command",
    body=AdjudicateRite,
    verdict=RiteVerdict,
    tag="rite-of-command",
    description="Arm, fight and settle the three rings, from the rings or from a full record checked against"
    "\nits deal.",
    exclude_unset=True,
)


@router.post("/v1/rite-of-command/deal", operation_id="deal_rite_of_command", response_model=DealRead)
async def deal_rite_of_command(body: DealCreate) -> dict[str, Any]:
    """Deal both players the same cards in different orders, and draw the first player."""
    catalog = roc.load_catalog(body.catalog.model_dump(exclude_none=True)) if body.catalog else None
    seed = body.seed or secrets.token_urlsafe(16)
    dealt = roc.deal(catalog or roc.sample_catalog(), body.deck_size, seed)
    return {**dealt.as_dict(), "seed": seed, "deck_size": body.deck_size}
