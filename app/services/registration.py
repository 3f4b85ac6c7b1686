"""Registration, set-based (api.md "Resources": ``POST /v1/events/{id}/entries``): the rows are
checked together (identities found by a few statements, app/services/players.py), then written in a
few multi-row statements (new players, the matched players gaining an external id, the entries),
whether one row or 5,000. The use cases (``app.services.events.add_entry``, ``add_entries``) lock
the event and say which errors answer: one entry's as its own status, a batch's as one 422 naming
every bad row.

- An entry's ``created_at`` is the registration's instant plus its row number in microseconds, so
  entries list in the order of the rows (``created_at, id``) however fast they are written.
- A late entry (a running stage that takes them) is checked in and joins with the lowest tie-break
  value: the rows of one registration in their order, each below the one before, as if registered
  one by one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core.errors import Conflict, NotFound, Problem
from app.core.identity import clean_name, name_key
from app.core.vocabulary import EntryStatus
from app.db.base import new_id, utcnow
from app.db.models import Entry, Event, Player, Stage
from app.services.offload import in_turns
from app.services.players import Identity, IdentityQuery, find_identities
from app.services.reads import details_of, set_details
from app.services.registry import registry_of

CHUNK = 250  # rows per multi-row statement (the loops between give the event loop its turns: in_turns)
Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class EntrySpec:
    """One registration as a client sends it (one of ``player_id`` or ``name``)."""

    player_id: str | None = None
    name: str | None = None
    external_id: str | None = None
    rating: float | None = None
    seed: int | None = None
    club: str | None = None
    characters: tuple[str, ...] = ()
    organizer: bool = False


@dataclass
class Checked:
    """The rows as checked against the stored state: each row's identity (or the error that it
    names no one player) and every problem found, in row order."""

    identities: list[Identity | Conflict | NotFound]
    problems: list[Problem]
    entered: dict[str, str]  # the rows' players already entered: their entries' ids by player id


async def _yield() -> None:
    """Let the event loop serve other requests (``/healthz`` among them) between two chunks."""
    await asyncio.sleep(0)


async def seeds_taken(session: AsyncSession, event_id: str) -> set[int]:
    rows = await session.execute(
        select(Entry.seed).where(Entry.event_id == event_id, Entry.seed.is_not(None))
    )
    return {s for s in rows.scalars() if s is not None}


async def entered(session: AsyncSession, event_id: str, player_ids: set[str]) -> dict[str, str]:
    """Which of these players are entered in the event already: their entries' ids by player id."""
    out: dict[str, str] = {}
    ordered = sorted(player_ids)
    for lo in range(0, len(ordered), CHUNK):
        rows = await session.execute(
            select(Entry.player_id, Entry.id).where(
                Entry.event_id == event_id, Entry.player_id.in_(ordered[lo : lo + CHUNK])
            )
        )
        out.update({r.player_id: r.id for r in rows})
    return out


def spec_problems(spec: EntrySpec, loc: Loc) -> list[Problem]:
    if len(set(spec.characters)) != len(spec.characters):
        return [Problem((*loc, "characters"), "each character may be named once")]
    return []


async def check_rows(
    session: AsyncSession, event: Event, specs: Sequence[EntrySpec], locs: Sequence[Loc]
) -> Checked:
    """Every row checked at once: its own fields, its seed (not given twice, nor already given), its
    identity (found, not twice in the rows, not already entered) and the external id it gives a
    player (not to two players)."""
    identities = await find_identities(
        session, [IdentityQuery(s.player_id, s.name, s.external_id) async for s in in_turns(specs)]
    )
    seeds = await seeds_taken(session, event.id) if any(s.seed is not None for s in specs) else set()
    already = await entered(
        session, event.id, {i.player.id for i in identities if isinstance(i, Identity) and i.player}
    )
    problems: list[Problem] = []
    first_row: dict[str, Any] = {}
    given: dict[str, Any] = {}  # external id -> the row that gives it to a player
    async for i, (spec, loc, identity) in in_turns(enumerate(zip(specs, locs, identities, strict=True))):
        problems.extend(spec_problems(spec, loc))
        if spec.seed is not None:
            if spec.seed in seeds:
                problems.append(Problem((*loc, "seed"), f"seed {spec.seed} is given twice"))
            seeds.add(spec.seed)
        if not isinstance(identity, Identity):
            problems.append(Problem(loc, identity.detail))
            continue
        if identity.key in first_row:
            problems.append(Problem(loc, f"the same player as row {first_row[identity.key]}"))
            continue
        first_row[identity.key] = row = loc[-1] if loc else i
        if identity.player is not None and identity.player.id in already:
            problems.append(
                Problem(loc, f"{identity.name!r} is already entered (entry {already[identity.player.id]})")
            )
        ext = identity.external_id
        if ext is not None and _gains(identity):
            if ext in given:
                problems.append(
                    Problem((*loc, "external_id"), f"external_id {ext!r} is given to row {given[ext]} too")
                )
            given.setdefault(ext, row)
    return Checked(identities, problems, already)


# the table's own statement: the new players need no ORM state, and it skips the ORM's bulk path
_PLAYER_INSERT = insert(cast(Any, Player.__table__))


def _gains(identity: Identity) -> bool:
    """Whether the registration gives its player an external id (a new player, or a matched one
    without any)."""
    return identity.external_id is not None and (
        identity.player is None or identity.player.external_id is None
    )


async def write_entries(
    session: AsyncSession,
    event: Event,
    stage: Stage | None,
    identities: Sequence[Identity],
    specs: Sequence[EntrySpec],
    token_hashes: Sequence[str],
    locs: Sequence[Loc],
) -> list[Entry]:
    """The checked rows written: the new players, the external ids matched players gain, then the
    entries (after the preset's checks and draws of their characters, ``EventRules.on_register``),
    each table in multi-row statements of ``CHUNK`` rows. The entries are returned in row order."""
    now = utcnow()
    players: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    async for k, (identity, spec, token_hash) in in_turns(
        enumerate(zip(identities, specs, token_hashes, strict=True))
    ):
        at = now + timedelta(microseconds=k)
        if identity.player is None:
            player_id, name = new_id(), clean_name(identity.name)
            players.append(
                {
                    "id": player_id,
                    "name": name,
                    "name_key": name_key(name),
                    "external_id": identity.external_id,
                    "created_at": at,
                }
            )
        else:
            player_id, name = identity.player.id, identity.player.name
            if _gains(identity):
                identity.player.external_id = identity.external_id  # written by the next flush
        rows.append(
            {
                "id": new_id(),
                "event_id": event.id,
                "player_id": player_id,
                "name": name,
                "characters": list(spec.characters),
                "organizer": spec.organizer,
                "rating_at_entry": spec.rating,
                "seed": spec.seed,
                "club": clean_name(spec.club) if spec.club else None,
                "matched_by": identity.by,
                "status": EntryStatus.ACTIVE.value,
                "token_hash": token_hash,
                # a late entry registers in person, so it is checked in
                "checked_in_at": now if stage is not None else None,
                "tiebreak_value": None,
                "created_at": at,
            }
        )
    rules = registry_of(session).rules_for(event)
    await rules.on_register(session, event, [r["characters"] for r in rows], locs)  # e.g. packs drawn
    if stage is not None:
        await _join_stage(session, event, stage, rows)
    for lo in range(0, len(players), CHUNK):
        await session.execute(_PLAYER_INSERT, players[lo : lo + CHUNK])
        await _yield()
    entries: list[Entry] = []
    for lo in range(0, len(rows), CHUNK):
        written = await session.execute(
            insert(Entry).returning(Entry, sort_by_parameter_order=True), rows[lo : lo + CHUNK]
        )
        entries.extend(written.scalars())
        await _yield()
    return entries


async def _join_stage(session: AsyncSession, event: Event, stage: Stage, rows: list[dict[str, Any]]) -> None:
    """Late entries join the running stage from its next round, each with a tie-break value below
    every other's (the lowest of the event's, less one, less one more for each row before it)."""
    values = [
        v
        for v in (
            await session.execute(select(Entry.tiebreak_value).where(Entry.event_id == event.id))
        ).scalars()
        if v is not None
    ]
    lowest = min(values, default=1.0)
    for k, row in enumerate(rows):
        row["tiebreak_value"] = lowest - 1.0 - k
    details = details_of(stage)
    set_details(stage, replace(details, entries=(*details.entries, *(r["id"] for r in rows))))
