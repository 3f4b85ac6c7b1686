"""Events and their entries: creation with validated settings, registration, drops."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.core import event_settings, presets
from app.core.access import Principal
from app.core.concurrency import check_if_match
from app.core.errors import Conflict, InvalidInput, Problem
from app.core.rng import commitment
from app.core.standings import settings_problems as standings_problems
from app.core.vocabulary import EntryStatus, EventStatus, JobKindName
from app.db.base import utcnow
from app.db.models import Entry, Event, EventHistory, Job, Player, Stage
from app.jobs import create_job
from app.services import outbox, registration, results, seasons
from app.services.games import get_game
from app.services.history import record
from app.services.offload import in_turns
from app.services.paging import newest_first
from app.services.players import Identity
from app.services.reads import (
    active_stage,
    count_entries,
    entries_by_id,
    get_entry,
    get_event,
    lock_event,
    settings_of,
    stage_matches,
    stage_settings,
    stages_of,
)
from app.services.registration import EntrySpec
from app.services.registry import registry_of
from app.services.summary import Summary, summarize
from app.services.tokens import hash_token, new_token


def _standings_problems(settings: dict[str, Any]) -> list[Problem]:
    # event_settings checks the plain numeric keys; the standings engine owns scoring and tiebreaks.
    return standings_problems(settings, ("settings",), keys=("scoring", "tiebreaks"))


async def resolve_settings(
    session: AsyncSession, game_key: str, preset: str | None, overrides: dict[str, Any] | None
) -> dict[str, Any]:
    game = await get_game(session, game_key)
    if problems := presets.game_problems(preset, game.key):
        raise InvalidInput(problems[0].msg, problems)
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
    season_id: str | None = None,
) -> Event:
    """A new event in registration; with ``season_id``, attached to that season in the same
    transaction (announced as an attach is; an unknown season is a 422 and nothing is written)."""
    resolved = await resolve_settings(session, game_key, preset, settings)
    if season_id is not None:
        await seasons.named_for_new_event(session, season_id)
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
    if season_id is not None:
        await seasons.attach(session, season_id, event.id)
    return event


@dataclass(frozen=True)
class EventView:
    """An event as clients read it, with its count of active entries and where it stands."""

    event: Event
    entries: int
    summary: Summary = Summary()


async def event_view(session: AsyncSession, event: Event) -> EventView:
    return EventView(event, await count_entries(session, event.id), await summarize(session, event))


async def get_event_view(session: AsyncSession, event_id: str) -> EventView:
    return await event_view(session, await get_event(session, event_id))


async def list_events(
    session: AsyncSession, limit: int, cursor: str | None
) -> tuple[list[EventView], str | None]:
    rows, nxt = await newest_first(session, Event, select(Event), limit, cursor)
    return [await event_view(session, e) for e in rows], nxt


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
    await outbox.updated(session, event)
    return await event_view(session, event)


async def _registration_stage(session: AsyncSession, event: Event) -> Stage | None:
    """None during registration; the running stage a late entry joins; else a Conflict."""
    if event.status == EventStatus.REGISTRATION:
        return None
    stage = await active_stage(session, event.id) if event.status == EventStatus.RUNNING else None
    if stage is None:
        raise Conflict(f"registration is closed: the event is {event.status}")
    own = stage_settings(stage).late_entries
    if not (settings_of(event).late_entries if own is None else own):
        raise Conflict(f"registration is closed: the event is {event.status}")
    if not registry_of(session).format_of(stage).late_entries:
        raise Conflict(f"a {stage.format} stage cannot take a late entry: its schedule is drawn")
    return stage


async def add_entry(session: AsyncSession, event_id: str, spec: EntrySpec, token_hash: str) -> Entry:
    """Register one player (409 when already entered or the event is full; 404 for an unknown
    ``player_id``): the same checks and writes as a list of one row (app/services/registration.py),
    each error answered as its own."""
    event = await lock_event(session, event_id)
    stage = await _registration_stage(session, event)
    checked = await registration.check_rows(session, event, [spec], [()])
    (identity,) = checked.identities
    if not isinstance(identity, Identity):
        raise identity
    if identity.player is not None and (existing := checked.entered.get(identity.player.id)):
        raise Conflict(f"player {identity.player.id} is already entered in this event (entry {existing})")
    capacity = settings_of(event).capacity
    if capacity is not None and await count_entries(session, event.id) >= capacity:
        raise Conflict(f"the event is full ({capacity} entries)")
    problems = [
        Problem(("seed",), f"seed {spec.seed} is already given to another entry") if p.loc == ("seed",) else p
        for p in checked.problems
    ]
    if problems:
        raise InvalidInput(problems[0].msg, problems)
    (entry,) = await registration.write_entries(session, event, stage, [identity], [spec], [token_hash], [()])
    await outbox.registered(session, event, [entry])
    return entry


async def add_entries(
    session: AsyncSession, event_id: str, specs: list[EntrySpec], token_hashes: list[str], where: str = "rows"
) -> list[Entry]:
    """Register many players, all or nothing: every bad row is named in one InvalidInput (its
    location is ``(where, row)``: the list index, or the CSV line); a full event is a Conflict.
    Set-based (app/services/registration.py): a few statements whatever the number of rows."""
    event = await lock_event(session, event_id)
    stage = await _registration_stage(session, event)
    locs: list[registration.Loc] = [
        (where, i) if where == "rows" else (where, i + 2) for i in range(len(specs))
    ]
    checked = await registration.check_rows(session, event, specs, locs)
    if checked.problems:
        raise InvalidInput(
            f"{len({p.loc[:2] for p in checked.problems})} bad row(s); nothing was registered",
            checked.problems,
        )
    capacity = settings_of(event).capacity
    if capacity is not None and await count_entries(session, event.id) + len(specs) > capacity:
        raise Conflict(f"the event is full ({capacity} entries); nothing was registered")
    identities = [i for i in checked.identities if isinstance(i, Identity)]
    entries = await registration.write_entries(session, event, stage, identities, specs, token_hashes, locs)
    await outbox.registered(session, event, entries)
    return entries


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


async def registered_many(
    session: AsyncSession, event_id: str, entries: list[Entry], principal: Principal | None
) -> list[EntryView]:
    """New entries of one event as their caller reads them."""
    event = await get_event(session, event_id)
    return [entry_view(session, event, e, principal) async for e in in_turns(entries)]


async def drop_entry(session: AsyncSession, event_id: str, entry_id: str, principal: Principal) -> Entry:
    """Drop an entry: its results stay, it is paired no more; its games still open in the running
    stage are resigned when the stage's ``on_drop`` says so (kept in each game's history as a drop
    by ``principal``)."""
    event = await lock_event(session, event_id)
    entry = await get_entry(session, event_id, entry_id)
    if entry.status == EntryStatus.DROPPED:
        return entry
    entry.status = EntryStatus.DROPPED
    entry.dropped_at = utcnow()
    await session.flush()
    stage = await active_stage(session, event.id) if event.status == EventStatus.RUNNING else None
    if stage is not None:
        mine = [
            m for _, m in await stage_matches(session, stage) if entry_id in {s.entry_id for s in m.seats}
        ]
        await results.resign_games(session, event, stage, mine, principal.actor)
    await outbox.dropped(session, event, entry, stage)
    return entry


async def reissue_entry_token(
    session: AsyncSession, event_id: str, entry_id: str, token_hash: str, who: Principal | None
) -> Entry:
    """Give an entry a new token (its personal link lost or shared): the old one stops working at
    once, as only the new one's digest is kept. Kept in the event's history (``entry_token``)."""
    await lock_event(session, event_id)
    entry = await get_entry(session, event_id, entry_id)
    entry.token_hash = token_hash
    await session.flush()
    record(session, event_id, "entry_token", who, {"entry_id": entry.id, "name": entry.name})
    return entry


async def reissue_every_entry_token(
    session: AsyncSession, event_id: str, who: Principal
) -> list[tuple[Entry, str]]:
    """A new token for every player still in the event (active), in one transaction, each with its
    token (returned once): a sheet of every personal link to print, when links went out in several
    batches or were lost. Every link handed out before stops working. Dropped and withdrawn entries
    keep theirs. One line in the event's history (``entry_tokens``) names them all."""
    await lock_event(session, event_id)
    rows = await session.execute(
        select(Entry)
        .where(Entry.event_id == event_id, Entry.status == EntryStatus.ACTIVE)
        .order_by(Entry.created_at, Entry.id)
    )
    entries = list(rows.scalars())
    if not entries:
        raise Conflict("the event has no player in it to give a link to: register players first")
    issued = [(entry, new_token()) for entry in entries]
    for entry, token in issued:
        entry.token_hash = hash_token(token)
    await session.flush()
    record(session, event_id, "entry_tokens", who, {"entry_ids": [e.id for e in entries]})
    return issued


async def entries_holding(session: AsyncSession, event_id: str, token_hashes: list[str]) -> list[Entry]:
    """The event's entries whose token is one of these digests (a link shown earlier that still
    works), in the order the digests are given."""
    if not token_hashes:
        return []
    rows = await session.execute(
        select(Entry).where(Entry.event_id == event_id, Entry.token_hash.in_(token_hashes))
    )
    by_hash = {e.token_hash: e for e in rows.scalars()}
    return [by_hash[h] for h in dict.fromkeys(token_hashes) if h in by_hash]


async def request_integrity_check(session: AsyncSession, event_id: str) -> Job:
    event = await get_event(session, event_id)
    return await create_job(
        session, JobKindName.INTEGRITY_CHECK, {"event_id": event.id}, dedup_key=f"integrity:{event.id}"
    )


# --------------------------------------------------------------------------- check-in
async def check_in(session: AsyncSession, event_id: str, entry_id: str, present: bool) -> Entry:
    """Mark an entry present (or not any more) before the event starts; needs ``check_in: true``."""
    event = await lock_event(session, event_id)
    entry = await get_entry(session, event_id, entry_id)
    if not settings_of(event).check_in:
        raise Conflict("this event has no check-in: set check_in: true in its settings")
    if event.status != EventStatus.REGISTRATION:
        raise Conflict(f"check-in closes when the event starts; it is {event.status}")
    if entry.status != EntryStatus.ACTIVE:
        raise Conflict(f"entry {entry.id} is {entry.status}")
    if present and entry.checked_in_at is None:
        entry.checked_in_at = utcnow()
    elif not present:
        entry.checked_in_at = None
    await session.flush()
    await outbox.checked_in(session, event, entry)
    return entry


# --------------------------------------------------------------------------- identity
@dataclass(frozen=True)
class IdentityView:
    """An entry's player, how the registration found it, and the player's other events."""

    entry: Entry
    player: Player
    other_events: list[tuple[str, str, str]]  # (event id, event name, entry id)


async def identity_view(session: AsyncSession, event_id: str, entry_id: str) -> IdentityView:
    entry = await get_entry(session, event_id, entry_id)
    player = await session.get(Player, entry.player_id)
    assert player is not None
    rows = await session.execute(
        select(Event.id, Event.name, Entry.id)
        .join(Entry, Entry.event_id == Event.id)
        .where(Entry.player_id == player.id, Event.id != event_id)
        .order_by(Event.created_at, Event.id)
    )
    return IdentityView(entry, player, [(r[0], r[1], r[2]) for r in rows])


async def split_identity(
    session: AsyncSession, event_id: str, entry_id: str, principal: Principal
) -> IdentityView:
    """Undo the match of an entry to an existing player: the entry gets a new player of its own (same
    name, no external id). Only during registration: after the start its results may be rated."""
    event = await lock_event(session, event_id)
    if event.status != EventStatus.REGISTRATION:
        raise Conflict(f"an entry's player can change only during registration; the event is {event.status}")
    entry = await get_entry(session, event_id, entry_id)
    before = await session.get(Player, entry.player_id)
    assert before is not None
    others = (
        await session.execute(
            select(func.count()).select_from(Entry).where(Entry.player_id == before.id, Entry.id != entry.id)
        )
    ).scalar_one()
    if not others:
        raise Conflict(f"entry {entry.id} is the only entry of player {before.id}: there is no match to undo")
    player = Player(name=before.name, name_key=before.name_key, external_id=None)
    session.add(player)
    await session.flush()
    entry.player_id = player.id
    entry.matched_by = "new"
    record(
        session,
        event.id,
        "identity_split",
        principal,
        {"entry": entry.id, "from_player": before.id, "to_player": player.id, "name": entry.name},
    )
    await session.flush()
    return await identity_view(session, event_id, entry_id)


# --------------------------------------------------------------------------- cancel, delete
async def cancel_event(session: AsyncSession, event_id: str, principal: Principal) -> EventView:
    """Cancel an event in registration or running: nothing more is paired; its results stay."""
    event = await lock_event(session, event_id)
    if event.status not in (EventStatus.REGISTRATION, EventStatus.RUNNING):
        raise Conflict(f"only an event in registration or running can be cancelled; it is {event.status}")
    record(session, event.id, "cancel", principal, {"status_before": event.status})
    event.status = EventStatus.CANCELLED
    await session.flush()
    await outbox.cancelled(session, event)
    return await event_view(session, event)


async def delete_event(session: AsyncSession, event_id: str) -> None:
    """Delete an event that never started (no stage was ever opened), with its entries."""
    event = await lock_event(session, event_id)
    if await stages_of(session, event.id):
        raise Conflict(f"event {event.id} has started: cancel it instead (POST /v1/events/{event.id}/cancel)")
    await outbox.deleted(session, event.id)
    await session.execute(delete(EventHistory).where(EventHistory.event_id == event.id))
    await session.execute(delete(Entry).where(Entry.event_id == event.id))
    await session.delete(event)
    await session.flush()


# --------------------------------------------------------------------------- forbidden pairs
async def put_forbidden_pairs(
    session: AsyncSession, event_id: str, pairs: list[list[str]], principal: Principal
) -> list[list[str]]:
    """Replace the event's forbidden pairs; every pair must be two different entries of the event."""
    event = await lock_event(session, event_id)
    if event.status not in (EventStatus.REGISTRATION, EventStatus.RUNNING):
        raise Conflict(f"the event is {event.status}")
    entries = await entries_by_id(session, event.id)
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    out: list[list[str]] = []
    for i, pair in enumerate(pairs):
        for j, e in enumerate(pair):
            if e not in entries:
                problems.append(Problem(("pairs", i, j), f"entry {e} is not in this event"))
        if len(pair) != 2 or pair[0] == pair[1]:
            problems.append(Problem(("pairs", i), "a pair is two different entries"))
            continue
        key = (min(pair), max(pair))
        if key in seen:
            problems.append(Problem(("pairs", i), "this pair is listed twice"))
        seen.add(key)
        out.append(list(key))
    if problems:
        raise InvalidInput(f"{len(problems)} problem(s) in the forbidden pairs", problems)
    record(session, event.id, "forbidden_pairs", principal, {"pairs": out})
    event.forbidden_pairs = out
    await session.flush()
    return out


async def get_forbidden_pairs(session: AsyncSession, event_id: str) -> list[list[str]]:
    return [list(p) for p in (await get_event(session, event_id)).forbidden_pairs or []]
