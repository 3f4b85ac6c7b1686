"""A Rite of Command match's deal (rite-of-command.md "In a match"): the deck the match's own seed
deals for a deck size, as the adjudicator deals it again when the match's record is judged — what
the players are handed before they play, and what a record of their plays is read against."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict
from app.core.games import rite_of_command as roc
from app.core.games.rite_of_command_catalog import sample_catalog
from app.services.reads import game_of, get_event, load_match
from app.services.results import match_seed

ADJUDICATOR = "rite-of-command"
DEFAULT_DECK = 6  # the source's example deals six cards a player


@dataclass(frozen=True)
class MatchDeal:
    deck_size: int
    deal: roc.Deal
    seats: list[str]  # entry ids: player 1 is seat 0, player 2 seat 1


async def match_deal(session: AsyncSession, match_id: str, deck_size: int) -> MatchDeal:
    """The deal of a match of a game adjudicated by ``rite-of-command``, from the sample catalog
    and the match's seed (public: the deal is the match's, and its record is judged against it)."""
    match = await load_match(session, match_id)
    event = await get_event(session, match.event_id)
    if (await game_of(session, event)).adjudicator != ADJUDICATOR:
        raise Conflict("this match's game is not Rite of Command: it has no deal")
    dealt = roc.deal(sample_catalog(), deck_size, match_seed(event, match))
    seats = [s.entry_id for s in sorted(match.seats, key=lambda s: s.seat)]
    return MatchDeal(deck_size, dealt, seats)


def record(
    deck_size: int, first_player: int, rings: list[int], wagers: dict[str, object] | None
) -> dict[str, object]:
    """The match's full record (``game_log``) from the rings played, turn by turn from the first
    player's: ``{deal: {deck_size}, first_player, plays}`` (the deal's seed is the match's)."""
    plays = [
        {"player": first_player if k % 2 == 0 else 3 - first_player, "ring": r} for k, r in enumerate(rings)
    ]
    log: dict[str, object] = {"deal": {"deck_size": deck_size}, "first_player": first_player, "plays": plays}
    if wagers is not None:
        log["wagers"] = wagers
    return log
