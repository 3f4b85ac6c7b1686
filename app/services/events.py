"""Events and their entries: creation with validated settings, registration, drops."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import event_settings, presets
from app.core.access import Principal
from app.core.concurrency import check_if_match
from app.core.errors import Conflict, InvalidInput, Problem
from app.core.rng import commitment
from app.core.standings import settings_problems as standings_problems
from app.core.vocabulary import EntryStatus, EventStatus, JobKindName
from app.db.base import utcnow
from app.db.models import Entry, Event, Job
from app.jobs import create_job
from app.services.games import get_game
from app.services.players import find_or_create_by_name, get_player
from app.services.reads import (
    active_stage,
    count_entries,
    details_of,
    get_entry,
    get_event,
    lock_event,
    set_details,
    settings_of,
    stage_settings,
)
from app.services.registry import registry_of


def new_token() -> str:
    return secrets.token_urlsafe(32)


def _standings_problems(settings: dict[str, Any]) -> list[Problem]:
    # event_settings checks the plain numeric keys; the standings engine owns scoring and tiebreaks.
    return standings_problems(settings, ("settings",), keys=("scoring", "tiebreaks"))


async def resolve_settings(
    session: AsyncSession, game_key: str, preset: str | None, overrides: dict[str, Any] | None
) -> dict[str, Any]:
    game = await get_game(session, game_key)
    merged = presets.resolve(preset, overrides)
    limits = event_settings.GameLimits(game.key, game.min_seats, game.max_seats)
    event_settings.validate(merged, limits, _standings_problems)
    return event_settings.fill_defaults(merged, limits)


async def create_event(
    session: AsyncSession,
    name: str,
    game_key: str,
    preset: str | None,
    settings: dict[str, Any] | None,
    seed: str | None,
    organizer_token_hash: str,
) -> Event:
    resolved = await resolve_settings(session, game_key, preset, settings)
    seed = seed or secrets.token_hex(32)
    event = Event(
        name=name.strip(),
        game_key=game_key,
        preset=preset or "generic",
        settings=resolved,
        seed=seed,
        seed_commitment=commitment(seed),
        status=EventStatus.REGISTRATION,
        organizer_token_hash=organizer_token_hash,
    )
    session.add(event)
    await session.flush()
    return event


@dataclass(frozen=True)
class EventView:
    """An event as clients read it, with its count of active entries."""

    event: Event
    entries: int


async def event_view(session: AsyncSession, event: Event) -> EventView:
    return EventView(event, await count_entries(session, event.id))


async def get_event_view(session: AsyncSession, event_id: str) -> EventView:
    return await event_view(session, await get_event(session, event_id))


async def list_events(
    session: AsyncSession, limit: int, cursor: str | None
) -> tuple[list[EventView], str | None]:
    stmt = select(Event)
    if cursor:
        last = await session.get(Event, cursor)
        if last is not None:
            stmt = stmt.where(
                (Event.created_at < last.created_at)
                | ((Event.created_at == last.created_at) & (Event.id < last.id))
            )
    rows = list(
        (
            await session.execute(stmt.order_by(Event.created_at.desc(), Event.id.desc()).limit(limit + 1))
        ).scalars()
    )
    nxt = rows[limit - 1].id if len(rows) > limit else None
    return [await event_view(session, e) for e in rows[:limit]], nxt


async def update_event(
    session: AsyncSession,
    event_id: str,
    if_match: str | None,
    name: str | None,
    settings: dict[str, Any] | None,
) -> EventView:
    """Rename an event or replace its settings overrides (``If-Match``: the event's version)."""
    event = await lock_event(session, event_id)
    check_if_match(if_match, event.version)
    if settings is not None:
        if event.status != EventStatus.REGISTRATION:
            raise Conflict(f"settings can change only during registration; the event is {event.status}")
        event.settings = await resolve_settings(session, event.game_key, event.preset, settings)
    if name is not None:
        event.name = name.strip()
    await session.flush()
    return await event_view(session, event)


async def add_entry(
    session: AsyncSession,
    event_id: str,
    *,
    player_id: str | None,
    name: str | None,
    characters: list[str],
    organizer: bool,
    token_hash: str,
) -> Entry:
    event = await lock_event(session, event_id)
    stage = None
    settings = settings_of(event)
    if event.status != EventStatus.REGISTRATION:
        if event.status == EventStatus.RUNNING:
            stage = await active_stage(session, event.id)
        if stage is None:
            raise Conflict(f"registration is closed: the event is {event.status}")
        own = stage_settings(stage).late_entries
        if not (settings.late_entries if own is None else own):
            raise Conflict(f"registration is closed: the event is {event.status}")
        if not registry_of(session).format_of(stage).late_entries:
            raise Conflict(f"a {stage.format} stage cannot take a late entry: its schedule is drawn")
    player = (
        await get_player(session, player_id)
        if player_id
        else await find_or_create_by_name(session, name or "")
    )
    existing = (
        await session.execute(select(Entry).where(Entry.event_id == event.id, Entry.player_id == player.id))
    ).scalar_one_or_none()
    if existing is not None:
        raise Conflict(f"player {player.id} is already entered in this event (entry {existing.id})")
    capacity = settings.capacity
    if capacity is not None and await count_entries(session, event.id) >= capacity:
        raise Conflict(f"the event is full ({capacity} entries)")
    if len(set(characters)) != len(characters):
        raise InvalidInput(
            "characters repeat", [Problem(("characters",), "each character may be named once")]
        )
    entry = Entry(
        event_id=event.id,
        player_id=player.id,
        name=player.name,
        characters=list(characters),
        organizer=organizer,
        status=EntryStatus.ACTIVE,
        token_hash=token_hash,
    )
    await registry_of(session).rules_for(event).on_register(session, event, entry)  # e.g. a sealed pack
    session.add(entry)
    await session.flush()
    if stage is not None:
        # A late entry joins the running stage from its next round, with the lowest tie-break value.
        values = [
            v
            for v in (
                await session.execute(select(Entry.tiebreak_value).where(Entry.event_id == event.id))
            ).scalars()
            if v is not None
        ]
        entry.tiebreak_value = min(values, default=1.0) - 1.0
        details = details_of(stage)
        set_details(stage, replace(details, entries=(*details.entries, entry.id)))
        await session.flush()
    return entry


@dataclass(frozen=True)
class EntryView:
    """An entry as one caller reads it: ``sealed`` when its characters are a pack not yet revealed
    (BATTLEBOOKS Secret Wars before game 1), and then ``characters`` is empty but for the organizer."""

    entry: Entry
    sealed: bool
    characters: list[str]


def entry_view(session: AsyncSession, event: Event, entry: Entry, principal: Principal | None) -> EntryView:
    sealed = registry_of(session).rules_for(event).sealed_characters(event)
    sees = not sealed or (principal is not None and principal.organizes(event.id))
    return EntryView(entry, sealed, list(entry.characters or []) if sees else [])


async def list_entries(
    session: AsyncSession, event_id: str, principal: Principal | None = None
) -> list[EntryView]:
    event = await get_event(session, event_id)
    rows = await session.execute(
        select(Entry).where(Entry.event_id == event_id).order_by(Entry.created_at, Entry.id)
    )
    return [entry_view(session, event, e, principal) for e in rows.scalars()]


async def get_entry_view(
    session: AsyncSession, event_id: str, entry_id: str, principal: Principal | None = None
) -> EntryView:
    event = await get_event(session, event_id)
    return entry_view(session, event, await get_entry(session, event_id, entry_id), principal)


async def registered(session: AsyncSession, entry: Entry, principal: Principal | None) -> EntryView:
    """A new (or dropped) entry as its caller reads it."""
    return entry_view(session, await get_event(session, entry.event_id), entry, principal)


async def drop_entry(session: AsyncSession, event_id: str, entry_id: str) -> Entry:
    """Drop an entry: its results stay, it is paired no more."""
    entry = await get_entry(session, event_id, entry_id)
    if entry.status == EntryStatus.DROPPED:
        return entry
    entry.status = EntryStatus.DROPPED
    entry.dropped_at = utcnow()
    await session.flush()
    return entry


async def request_integrity_check(session: AsyncSession, event_id: str) -> Job:
    event = await get_event(session, event_id)
    return await create_job(
        session, JobKindName.INTEGRITY_CHECK, {"event_id": event.id}, dedup_key=f"integrity:{event.id}"
    )
