"""Rite of Command's card catalogs: the cards as data, their JSON shape and its validation
(rite-of-command.md "Cards (a catalog, data not code)"). The rulings on catalogs are
rite_of_command.py's (tags compare case-insensitively, card names are exact and name one card, a
soldier's condition tests the opponent, unknown keys are problems); this module holds the code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Annotated, Any, Required

from annotated_types import Len, MinLen
from typing_extensions import TypedDict

from app.core.errors import InvalidInput, Problem
from app.core.games.adjudication import record_keys
from app.core.limits import invisible

ANY = "any"
MAX_HANDS = 3
_CONDITION = re.compile(r"^(vs|if wielder is)\s+(non-)?(.+)$", re.IGNORECASE | re.DOTALL)

Loc = tuple[str | int, ...]
# Card names are checked against the catalog, a condition against its grammar ('vs TAG', ...).
Text = Annotated[str, MinLen(1)]
Power = tuple[int, int]


# --- the catalog -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Condition:
    """A test of a tag of the opponent ("vs") or of the wielder ("if wielder is"), maybe negated."""

    subject: str  # "opponent" or "wielder"
    tag: str
    negated: bool = False

    def holds(self, tags: frozenset[str]) -> bool:
        return (self.tag in tags) != self.negated

    def __str__(self) -> str:
        prefix = "vs" if self.subject == "opponent" else "if wielder is"
        return f"{prefix} {'non-' if self.negated else ''}{self.tag}"


@dataclass(frozen=True)
class Rating:
    """A power rating "X/Y (condition)": X when the condition holds, else Y; X/X without one."""

    when: int
    otherwise: int
    condition: Condition | None = None

    def value(self, wielder: frozenset[str], opponent: frozenset[str]) -> int:
        if self.condition is None:
            return self.when
        tags = opponent if self.condition.subject == "opponent" else wielder
        return self.when if self.condition.holds(tags) else self.otherwise


@dataclass(frozen=True)
class Soldier:
    name: str
    tags: frozenset[str]
    hands: tuple[str, ...]  # each "any" or a weapon type
    power: Rating

    def rating_against(self, opponent: Soldier) -> int:
        return self.power.value(self.tags, opponent.tags)


@dataclass(frozen=True)
class Weapon:
    name: str
    type: str
    power: Rating

    def fits(self, hand: str) -> bool:
        return hand == ANY or hand == self.type


@dataclass(frozen=True)
class Catalog:
    soldiers: dict[str, Soldier]
    weapons: dict[str, Weapon]
    order: tuple[str, ...]  # every card name, soldiers then weapons, in catalog order

    def card(self, name: str) -> Soldier | Weapon | None:
        return self.soldiers.get(name) or self.weapons.get(name)


# --- the catalog's shape (the OpenAPI document's schema of a ``catalog``) ---------------------
class RiteOfCommandSoldier(TypedDict, total=False, closed=True):
    name: Required[Text]
    tags: list[Text]
    hands: Annotated[list[Text], Len(0, MAX_HANDS)]
    power: Required[Power]
    condition: str | None
    note: Any


class RiteOfCommandWeapon(TypedDict, total=False, closed=True):
    name: Required[Text]
    type: Required[Text]
    power: Required[Power]
    condition: str | None
    note: Any


class RiteOfCommandCatalog(TypedDict, total=False, closed=True):
    """The cards of the game (the shipped sample catalog when left out)."""

    soldiers: Required[list[RiteOfCommandSoldier]]
    weapons: Required[list[RiteOfCommandWeapon]]
    name: Any
    note: Any


def _fmt(loc: Loc) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def _raise(problems: list[Problem], what: str) -> None:
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InvalidInput(f"{what}: {_fmt(first.loc)}: {first.msg}{more}", problems)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_keys(obj: Mapping[str, Any], allowed: frozenset[str], loc: Loc, problems: list[Problem]) -> None:
    for key in obj:
        if key not in allowed:
            problems.append(Problem((*loc, str(key)), f"unknown field {key!r}"))


def _tag(value: Any, loc: Loc, problems: list[Problem], what: str = "tag") -> str | None:
    if not isinstance(value, str) or invisible(value):
        problems.append(Problem(loc, f"a {what} must contain a visible character"))
        return None
    tag = value.strip().lower()
    if tag.startswith("non-"):
        problems.append(Problem(loc, f"a {what} may not start with 'non-' ({value!r})"))
        return None
    return tag


def _rating(card: Mapping[str, Any], loc: Loc, problems: list[Problem], weapon: bool) -> Rating | None:
    power = card.get("power")
    ok = True
    if not (isinstance(power, list) and len(power) == 2 and all(_is_int(p) for p in power)):
        problems.append(Problem((*loc, "power"), "power must be two whole numbers [X, Y]"))
        ok = False
    condition: Condition | None = None
    raw = card.get("condition")
    if raw is not None:
        match = _CONDITION.match(raw.strip()) if isinstance(raw, str) else None
        tag = match and _tag(match.group(3), (*loc, "condition"), problems, "condition tag")
        if not isinstance(raw, str) or not match:
            problems.append(
                Problem(
                    (*loc, "condition"),
                    "condition must be 'vs TAG', 'vs non-TAG', 'if wielder is TAG' or "
                    "'if wielder is non-TAG'",
                )
            )
            ok = False
        elif not tag:
            ok = False
        else:
            subject = "opponent" if match.group(1).lower() == "vs" else "wielder"
            if subject == "wielder" and not weapon:
                problems.append(
                    Problem((*loc, "condition"), "a soldier's condition tests the opponent ('vs ...')")
                )
                ok = False
            condition = Condition(subject, tag, negated=bool(match.group(2)))
    if not ok:
        return None
    assert isinstance(power, list)
    return Rating(power[0], power[1], condition)


def _name(card: Mapping[str, Any], loc: Loc, problems: list[Problem], seen: dict[str, Loc]) -> str | None:
    name = card.get("name")
    if not isinstance(name, str) or invisible(name):
        problems.append(Problem((*loc, "name"), "a card's name must contain a visible character"))
        return None
    if name in seen:
        problems.append(Problem((*loc, "name"), f"card name {name!r} is already used at {_fmt(seen[name])}"))
        return None
    seen[name] = loc
    return name


def load_catalog(data: Any, loc: Loc = ("catalog",)) -> Catalog:
    """Validate a catalog's JSON and build it; raises InvalidInput listing every problem found."""
    problems: list[Problem] = []
    if not isinstance(data, Mapping):
        raise InvalidInput(
            f"{_fmt(loc)}: a catalog is an object {{soldiers, weapons}}",
            [Problem(loc, "a catalog is an object {soldiers, weapons}")],
        )
    _check_keys(data, record_keys(RiteOfCommandCatalog), loc, problems)
    seen: dict[str, Loc] = {}
    soldiers: dict[str, Soldier] = {}
    weapons: dict[str, Weapon] = {}
    hand_uses: list[tuple[str, Loc]] = []
    lists: dict[str, list[Any]] = {}
    for key in ("soldiers", "weapons"):
        value = data.get(key)
        if not isinstance(value, list):
            problems.append(Problem((*loc, key), f"{key} must be a list (it may be empty)"))
            value = []
        lists[key] = value

    for i, raw in enumerate(lists["soldiers"]):
        at: Loc = (*loc, "soldiers", i)
        if not isinstance(raw, Mapping):
            problems.append(Problem(at, "a soldier is an object {name, tags, hands, power, condition?}"))
            continue
        _check_keys(raw, record_keys(RiteOfCommandSoldier), at, problems)
        name = _name(raw, at, problems, seen)
        tags: set[str] = set()
        raw_tags = raw.get("tags", [])
        if not isinstance(raw_tags, list):
            problems.append(Problem((*at, "tags"), "tags must be a list of texts"))
            raw_tags = []
        for j, t in enumerate(raw_tags):
            tag = _tag(t, (*at, "tags", j), problems)
            if tag:
                tags.add(tag)
        hands: list[str] = []
        raw_hands = raw.get("hands", [])
        if not isinstance(raw_hands, list) or len(raw_hands) > MAX_HANDS:
            problems.append(Problem((*at, "hands"), "hands must be a list of 0 to 3 hand types"))
            raw_hands = []
        for j, h in enumerate(raw_hands):
            hand = _tag(h, (*at, "hands", j), problems, "hand type")
            if hand:
                hands.append(hand)
                hand_uses.append((hand, (*at, "hands", j)))
        rating = _rating(raw, at, problems, weapon=False)
        if name is not None and rating is not None:
            soldiers[name] = Soldier(name, frozenset(tags), tuple(hands), rating)

    for i, raw in enumerate(lists["weapons"]):
        at = (*loc, "weapons", i)
        if not isinstance(raw, Mapping):
            problems.append(Problem(at, "a weapon is an object {name, type, power, condition?}"))
            continue
        _check_keys(raw, record_keys(RiteOfCommandWeapon), at, problems)
        name = _name(raw, at, problems, seen)
        type_ = _tag(raw.get("type"), (*at, "type"), problems, "weapon type")
        if type_ == ANY:
            problems.append(Problem((*at, "type"), "'any' is not a weapon type"))
            type_ = None
        rating = _rating(raw, at, problems, weapon=True)
        if name is not None and type_ is not None and rating is not None:
            weapons[name] = Weapon(name, type_, rating)

    types = {str(raw.get("type", "")).strip().lower() for raw in lists["weapons"] if isinstance(raw, Mapping)}
    for hand, at in hand_uses:
        if hand != ANY and hand not in types:
            problems.append(Problem(at, f"no weapon has the type {hand!r}"))
    if not lists["soldiers"] and not lists["weapons"] and not problems:
        problems.append(Problem(loc, "a catalog needs at least one card"))
    # report in document order (card by card), whatever order the checks ran in
    problems.sort(
        key=lambda p: tuple((0, x, "") if isinstance(x, int) else (1, 0, x) for x in p.loc[: len(loc) + 2])
    )
    _raise(problems, "invalid catalog")
    order = tuple(
        [r["name"] for r in lists["soldiers"]] + [r["name"] for r in lists["weapons"]]  # all valid here
    )
    return Catalog(soldiers, weapons, order)


def sample_catalog_data() -> dict[str, Any]:
    """The shipped sample catalog's JSON (every card the seed names; other values are samples)."""
    text = resources.files("app.core.games").joinpath("data/rite_of_command_catalog.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=1)
def sample_catalog() -> Catalog:
    return load_catalog(sample_catalog_data())


def catalog_from(game_log: Mapping[str, Any]) -> Catalog:
    """The catalog given with the input, or the shipped sample catalog."""
    raw = game_log.get("catalog")
    return sample_catalog() if raw is None else load_catalog(raw)
