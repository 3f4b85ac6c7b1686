"""The durable outbox: every change a screen must follow, as one row written in the same transaction
as the change (api.md "Live updates"). The live stream (``app/services/live.py``) and the webhooks
(``app/services/webhooks.py``) read it; the table is the truth, and a wake-up only says "look".

- The use cases call one function here per change (``match_confirmed``, ``round_paired``, …). The
  rows wait beside the transaction and are written when it commits, each event's with the event
  row locked for update (``reads.lock_event`` took it at the change's start, or — a result, which
  only holds the event — the statement that writes the rows marks the event first: on Postgres one
  statement, the lock taken before the rows are numbered, then only the commit). So an event's
  rows are numbered in the order their transactions commit, and a reader that has seen row ``n``
  of an event has seen every row of that event before it: ``Last-Event-ID`` is exact; and results
  of one event hold its row for one statement and the commit, not for the rest of their work.
- The wake-up is part of the same transaction: on Postgres a ``NOTIFY`` (delivered at commit,
  dropped by a rollback) reaches every API process; in the process itself, the commit wakes the
  local streams (``after_commit``, below), which is all the embedded default needs.
- For every active webhook that wants the event, a delivery row and its job are written in the same
  transaction too: a rollback drops them with the change, and no request waits for a delivery. A
  delivery names its row, so a row a webhook wants is written at once (after the rows before it).
- ``standings.changed`` is written once per stage per transaction, however many results moved it.
- A result reads whether any webhook may want its event's rows in the statement that reads its
  match (``hooks_wanted``, ``no_hooks``); when none does, its wake-up goes with its rows at commit,
  and a reported result costs no statement here but that one.
- A season's ``season.updated`` is keyed by the season (the outbox's ``event_id`` holds the season's
  id: no foreign key) and written once per season per transaction: by an attach or a detach, and
  for every season an event is counted in when it finishes, its final standings change or it is
  deleted (``_seasons_follow``, called by ``finished``, ``standings_changed`` and ``deleted``: one
  place). Its rows are written with the season row locked (``FOR NO KEY UPDATE``, which an
  attach's foreign key does not wait for), after the event's own rows, so a season's rows too are
  numbered in the order their transactions commit. Only the webhooks of every event receive them.
- A rating pool's ``ratings.updated`` is keyed by the pool (``pool_key``: a name-based UUID of the
  pool's key, which fits the outbox's key column as a pool's key may not and which no event's or
  season's random id can equal) and written once per pool per transaction, by the rating work that
  changed its ratings (``ratings_updated``: the incremental update, a recompute, a starting rating
  taken at once). Its rows are written with the pool's row locked (``FOR NO KEY UPDATE``; the rating
  jobs hold it already), so they too are numbered in the order their transactions commit. Only the
  webhooks of every event receive them.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import String, and_, bindparam, func, insert, or_, select, union_all
from sqlalchemy import event as sa_event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from app.core.lifecycle import standings_final
from app.core.vocabulary import (
    POOL_TYPES,
    SEASON_TYPES,
    DeliveryStatus,
    EventStatus,
    JobKindName,
    LiveEventType,
    MatchStatus,
    RatingChange,
    SeasonChange,
    StageStatus,
    WebhookStatus,
)
from app.core.webhooks import LEASE_SECONDS
from app.db.base import new_id, utcnow
from app.db.models import (
    Entry,
    Event,
    Match,
    OutboxEvent,
    RatingPool,
    Round,
    Season,
    SeasonEvent,
    Stage,
    Webhook,
    WebhookDelivery,
)
from app.db.session import kept_in_transaction, transaction_state
from app.jobs import create_job
from app.services.reads import MARK, mark_changed, unmarked

CHANNEL = "arbiter_outbox"  # the Postgres NOTIFY channel; the payload is the event's id
HUB_KEY = "live_hub"  # session info: this process's streams (app/services/live.py), woken at commit
_PENDING_KEY = "outbox_pending"
LISTED = 500  # entries named by one entry.registered (a CSV of 5,000 is one change, not 5,000)


@dataclass
class _Pending:
    """What the transaction in progress has written: the events it changed, the rows written once,
    and each event's webhooks (read once)."""

    events: set[str] = field(default_factory=set)
    once: set[tuple[str, ...]] = field(default_factory=set)
    hooks: dict[str, list[Webhook]] = field(default_factory=dict)
    closed: dict[str, list[int]] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)  # emitted, written at commit (``_write``)
    unwoken: set[str] = field(default_factory=set)  # events whose wake-up goes with their rows (``no_hooks``)
    seasons: set[str] = field(default_factory=set)  # the seasons whose rows this transaction emitted
    held: set[str] = field(default_factory=set)  # the seasons and pools whose row it has locked (``_hold``)
    followed: set[str] = field(default_factory=set)  # events whose seasons it told (``_seasons_follow``)
    pools: dict[str, str] = field(default_factory=dict)  # the pools whose rows it emitted: key -> pool


def _pending(session: AsyncSession | Session) -> _Pending:
    return transaction_state(session, _PENDING_KEY, _Pending)


@sa_event.listens_for(Session, "before_commit")
def _written_at_commit(session: Session) -> None:
    session.flush()  # the change's own rows first: the event's lock is taken by the last statement
    _write(session)


def _write(session: Session) -> None:
    """Write the rows emitted and not written yet, in order; each event's in one statement with
    its mark when this transaction has not marked the event yet (``reads.unmarked``): on Postgres the
    mark is the statement's first part and its rows are numbered from its output, so after the
    event row's lock is taken."""
    pending = kept_in_transaction(session, _PENDING_KEY)
    if not isinstance(pending, _Pending) or not pending.rows:
        return
    rows, pending.rows = pending.rows, []
    by_event: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_event.setdefault(row["event_id"], []).append(row)
    postgres = session.get_bind().dialect.name == "postgresql"
    for event_id, its in by_event.items():
        if event_id in pending.seasons or event_id in pending.pools:
            _hold(session, event_id)
            session.execute(insert(OutboxEvent), its)
            continue
        mark = unmarked(session, event_id)
        wake = postgres and event_id in pending.unwoken
        pending.unwoken.discard(event_id)
        if mark is None or not postgres:
            if mark is not None:
                session.execute(MARK, mark)
            if wake:
                session.execute(select(func.pg_notify(CHANNEL, event_id)))
            session.execute(insert(OutboxEvent), its)
            continue
        params = {f"{k}_{i}": r[k] for i, r in enumerate(its) for k in ("type", "data", "created_at")}
        written = session.connection().execute(_marked_rows(len(its), wake), {**mark, **params})
        if written.rowcount != len(its):  # a result holds its event: it cannot have gone
            raise RuntimeError(f"event {event_id} vanished before its outbox rows were written")


# A season's rows are written with its row locked until the transaction ends, a pool's with its
# (``_hold``).
_HOLD_SEASON = (
    select(Season.id).where(Season.id == bindparam("key", type_=String)).with_for_update(key_share=True)
)
_HOLD_POOL = (
    select(RatingPool.key)
    .where(RatingPool.key == bindparam("key", type_=String))
    .with_for_update(key_share=True)
)


def _hold(session: Session, key: str) -> None:
    """Lock the row of the season, or the pool, whose rows are keyed ``key`` (once per transaction;
    Postgres: ``FOR NO KEY UPDATE``, which neither waits for nor holds up an attach's foreign key, or
    a rating's; SQLite's writer holds the whole database)."""
    pending = _pending(session)
    if key in pending.held or session.get_bind().dialect.name != "postgresql":
        return
    pending.held.add(key)
    pool = pending.pools.get(key)
    if pool is not None:
        session.execute(_HOLD_POOL, {"key": pool})
    else:
        session.execute(_HOLD_SEASON, {"key": key})


@functools.cache
def _marked_rows(count: int, wake: bool) -> Any:
    """Postgres: ``count`` rows of one event written by the statement that marks it (``reads.MARK``,
    a data-modifying ``WITH`` whose output numbers the rows, so after the event row's lock),
    with the event's wake-up when ``wake``; built once per shape, the rows' values bound."""
    woken = [func.pg_notify(CHANNEL, Event.id)] if wake else []
    marked = MARK.returning(Event.id, *woken).cte("marked")
    cols = OutboxEvent.__table__.c
    parts = [
        select(
            marked.c.id,
            bindparam(f"type_{i}", type_=cols.type.type),
            bindparam(f"data_{i}", type_=cols.data.type),
            bindparam(f"created_at_{i}", type_=cols.created_at.type),
        )
        for i in range(count)
    ]
    rows = parts[0] if count == 1 else union_all(*parts)
    return insert(OutboxEvent).from_select(["event_id", "type", "data", "created_at"], rows)


@sa_event.listens_for(Session, "after_commit")
def _woken_at_commit(session: Session) -> None:
    pending = kept_in_transaction(session, _PENDING_KEY)
    hub = session.info.get(HUB_KEY)
    if isinstance(pending, _Pending) and pending.events and hub is not None:
        hub.wake(pending.events)


async def emit(
    session: AsyncSession, event_id: str, type: LiveEventType, data: dict[str, Any], *, once: bool = False
) -> None:
    """One row (``once``: unless this transaction emitted the same type and data for the event),
    its wake-up, and a delivery for every webhook that wants it."""
    pending = _pending(session)
    if once:
        key = (event_id, str(type), repr(sorted(data.items())))
        if key in pending.once:
            return
        pending.once.add(key)
    await _emit(session, event_id, type, {"event_id": event_id, **data})


async def _emit(session: AsyncSession, event_id: str, type: LiveEventType, data: dict[str, Any]) -> None:
    """``emit``'s row under the key ``event_id`` (an event's id, a season's: ``season_updated``, or a
    pool's: ``ratings_updated``)."""
    pending = _pending(session)
    if event_id not in pending.events:
        pending.events.add(event_id)
        if event_id not in pending.hooks:
            pending.hooks[event_id] = await _hooks(session, event_id)
    row = {
        "event_id": event_id,
        "type": str(type),
        "data": data,
        "created_at": utcnow(),
    }
    wanting = [h for h in pending.hooks[event_id] if h.types is None or str(type) in h.types]
    if not wanting:
        pending.rows.append(row)  # written at commit (``_write``)
        return
    # the deliveries name the row: written now, after the rows emitted before it, the event marked
    # (a season or a pool: its row locked)
    await session.run_sync(_write)
    if event_id in pending.seasons or event_id in pending.pools:
        await session.run_sync(_hold, event_id)
    else:
        await mark_changed(session, event_id)
    written = OutboxEvent(**row)
    session.add(written)
    await session.flush()
    for hook in wanting:
        delivery = WebhookDelivery(
            id=new_id(),
            webhook_id=hook.id,
            outbox_id=written.id,
            type=str(type),
            status=DeliveryStatus.PENDING,
            attempts=0,
            # its job is on its way: a failure schedules the next attempt, and a job that never
            # reports back leaves it to the sweep after the lease
            next_attempt_at=utcnow() + timedelta(seconds=LEASE_SECONDS),
        )
        session.add(delivery)
        await create_job(session, JobKindName.WEBHOOK_DELIVERY, {"delivery_id": delivery.id})


async def _hooks(session: AsyncSession, event_id: str) -> list[Webhook]:
    """The active webhooks that may want the event's rows; on Postgres the statement also sends the
    event's wake-up (a ``NOTIFY``, delivered at commit), evaluated once whatever the rows."""
    if session.get_bind().dialect.name != "postgresql":
        return list((await session.execute(_HOOKS, {"event_id": event_id})).scalars())
    rows = await session.execute(_HOOKS_WOKEN, {"event_id": event_id})
    return [hook for _, hook in rows if hook is not None]


def hooks_wanted(event_id: Any) -> Any:
    """Whether an active webhook may want the rows of the event ``event_id`` (a column): a use case
    that reads its event in one statement may read this with it, and say so (``no_hooks``)."""
    return select(Webhook.id).where(_wanting(event_id)).exists()


def _wanting(event_id: Any) -> Any:
    """The condition on a webhook that may want the rows of the event ``event_id``: active, and the
    event's own or every event's."""
    return and_(
        Webhook.status == WebhookStatus.ACTIVE,
        or_(Webhook.event_id == event_id, Webhook.event_id.is_(None)),
    )


def no_hooks(session: AsyncSession, event_id: str) -> None:
    """This transaction read (``hooks_wanted``) that no webhook wants the event's rows: ``emit`` reads
    none, and the event's wake-up is sent by the statement that writes its rows at commit."""
    pending = _pending(session)
    if event_id not in pending.hooks:
        pending.hooks[event_id] = []
        pending.unwoken.add(event_id)


def _hooks_statements() -> tuple[Any, Any]:
    """``_hooks``' statements, built once (``event_id`` bound at each call): the webhooks alone, and
    beside the Postgres wake-up."""
    event_id = bindparam("event_id", type_=String)
    wanted = _wanting(event_id)
    wake = select(func.pg_notify(CHANNEL, event_id).label("woken")).subquery()
    return select(Webhook).where(wanted), select(wake.c.woken, Webhook).select_from(wake).outerjoin(
        Webhook, wanted
    )


_HOOKS, _HOOKS_WOKEN = _hooks_statements()


# --------------------------------------------------------------------------- reads
def _stamp(at: datetime) -> str:
    return at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def envelope(row: OutboxEvent) -> dict[str, Any]:
    """A row as streams and webhooks send it: ``{id, type, event_id, timestamp, data}`` — a season's
    (``SEASON_TYPES``) with ``season_id`` in place of ``event_id``, a pool's (``POOL_TYPES``) with
    ``pool`` (its key, which its data holds)."""
    if row.type in POOL_TYPES:
        named: tuple[str, Any] = ("pool", row.data["pool"])
    else:
        named = ("season_id" if row.type in SEASON_TYPES else "event_id", row.event_id)
    return {
        "id": row.id,
        "type": row.type,
        named[0]: named[1],
        "timestamp": _stamp(row.created_at),
        "data": row.data,
    }


def notice(position: int, type: str, key: str, reason: str, named: str = "event_id") -> dict[str, Any]:
    """A stream's own message in the same envelope (``stream.reset``), at the stream's position: an
    event's stream names its event (``named``: ``event_id``), a season's its season (``season_id``),
    a pool's its pool (``pool``)."""
    return {
        "id": position,
        "type": type,
        named: key,
        "timestamp": _stamp(utcnow()),
        "data": {named: key, "reason": reason},
    }


async def since(session: AsyncSession, event_id: str, after: int, limit: int = 500) -> list[OutboxEvent]:
    """The event's rows after ``after``, in order."""
    rows = await session.execute(
        select(OutboxEvent)
        .where(OutboxEvent.event_id == event_id, OutboxEvent.id > after)
        .order_by(OutboxEvent.id)
        .limit(limit)
    )
    return list(rows.scalars())


async def bounds(session: AsyncSession) -> tuple[int, int]:
    """The lowest and highest ids the outbox holds ((0, 0) when empty)."""
    low, high = (await session.execute(select(func.min(OutboxEvent.id), func.max(OutboxEvent.id)))).one()
    return int(low or 0), int(high or 0)


# --------------------------------------------------------------------------- what the use cases call
def _match(match: Match, rnd: Round, stage: Stage) -> dict[str, Any]:
    return {
        "match_id": match.id,
        "round": rnd.number,
        "stage": stage.index,
        "table": match.table,
        "status": str(match.status),
        "version": match.version,
    }


def _result(match: Match) -> dict[str, Any]:
    return {
        "outcome": match.outcome,
        "seats": [
            {"entry_id": s.entry_id, "place": s.place, "score": s.score, "violation": s.violation}
            for s in sorted(match.seats, key=lambda s: s.seat)
        ],
    }


async def _round_of(session: AsyncSession, match: Match) -> Round:
    rnd = await session.get(Round, match.round_id)
    assert rnd is not None
    return rnd


async def standings_changed(
    session: AsyncSession, event: Event, stage: Stage, *, seasons: bool = True
) -> None:
    """The stage's standings moved; a finished event's seasons follow (not ``seasons``: the finish
    that follows says it, ``stage_advanced``)."""
    final = standings_final(stage.status, event.status)
    await emit(
        session, event.id, LiveEventType.STANDINGS_CHANGED, {"stage": stage.index, "final": final}, once=True
    )
    if seasons and event.status == EventStatus.FINISHED:
        await _seasons_follow(session, event.id, SeasonChange.STANDINGS_CHANGED)


async def result_confirmed(
    session: AsyncSession, event: Event, stage: Stage, match: Match, *, correction: bool
) -> None:
    """A result became final (``match.confirmed``) or a final one was corrected (``result.corrected``);
    the stage's standings moved."""
    kind = LiveEventType.RESULT_CORRECTED if correction else LiveEventType.MATCH_CONFIRMED
    rnd = await _round_of(session, match)
    await emit(session, event.id, kind, {**_match(match, rnd, stage), "result": _result(match)})
    await standings_changed(session, event, stage)


async def claim_filed(session: AsyncSession, event: Event, stage: Stage, match: Match) -> None:
    """A player's claim that left the match open: ``match.reported`` (the others have not claimed,
    or the organizer confirms) or ``match.disputed`` (two claims differ). A claim that confirmed the
    match is announced by ``result_confirmed``."""
    if match.status not in (MatchStatus.REPORTED, MatchStatus.DISPUTED):
        return
    kind = (
        LiveEventType.MATCH_DISPUTED if match.status == MatchStatus.DISPUTED else LiveEventType.MATCH_REPORTED
    )
    await emit(session, event.id, kind, _match(match, await _round_of(session, match), stage))


async def hero_declared(
    session: AsyncSession, event: Event, stage: Stage, match: Match, entry_id: str, character: str | None
) -> None:
    """A seat's hero declared before a BATTLEBOOKS game: the pairing shows it."""
    data = {
        **_match(match, await _round_of(session, match), stage),
        "entry_id": entry_id,
        "character": character,
    }
    await emit(session, event.id, LiveEventType.HERO_DECLARED, data)


async def final_rules_chosen(
    session: AsyncSession, event_id: str, entry_id: str, colossal: bool, version: str
) -> None:
    """A finalist's answer on the Colossal Arena rules (WBC Titan: The Arena), and the final's
    rules version it leaves."""
    data = {"entry_id": entry_id, "colossal": colossal, "version": version}
    await emit(session, event_id, LiveEventType.FINAL_RULES_CHOSEN, data)


async def round_paired(
    session: AsyncSession, event: Event, stage: Stage, rnd: Round, matches: Sequence[Match]
) -> None:
    tables = [
        {
            "match_id": m.id,
            "table": m.table,
            "status": str(m.status),
            "entries": [s.entry_id for s in sorted(m.seats, key=lambda s: s.seat)],
        }
        for m in matches
    ]
    await emit(
        session,
        event.id,
        LiveEventType.ROUND_PAIRED,
        {"round": rnd.number, "stage": stage.index, "tables": tables},
    )


async def round_undone(session: AsyncSession, event_id: str, undone: dict[str, Any]) -> None:
    await emit(
        session, event_id, LiveEventType.ROUND_UNDONE, {"round": undone["round"], "stage": undone["stage"]}
    )


async def round_swapped(session: AsyncSession, event_id: str, swap: dict[str, Any]) -> None:
    await emit(session, event_id, LiveEventType.ROUND_SWAPPED, dict(swap))


async def started(session: AsyncSession, event: Event) -> None:
    """The start (its first stage's round follows as ``round.paired``)."""
    await emit(session, event.id, LiveEventType.EVENT_STARTED, {"status": str(event.status)})


def stage_closed(session: AsyncSession, event: Event, stage: Stage) -> None:
    """Note a stage closed by this transaction (``stage.advanced`` names them)."""
    _pending(session).closed.setdefault(event.id, []).append(stage.index)


async def stage_advanced(
    session: AsyncSession, event: Event, stages: Sequence[Stage], winner: Entry | None
) -> None:
    """The stages closed now (their standings final), the stage that is active now, and the event
    finished with its winner when no stage is left."""
    closed = _pending(session).closed.pop(event.id, [])
    for stage in stages:
        if stage.index in closed:
            # the event's seasons hear of its finish (``finished``), not of these standings
            await standings_changed(session, event, stage, seasons=False)
    active = next((s.index for s in stages if s.status == StageStatus.ACTIVE), None)
    await emit(session, event.id, LiveEventType.STAGE_ADVANCED, {"closed": closed, "stage": active})
    if event.status == EventStatus.FINISHED:
        await finished(session, event, winner)


async def finished(session: AsyncSession, event: Event, winner: Entry | None) -> None:
    """The event is finished, with its winner (again when a correction changed the winner)."""
    who = {"entry_id": winner.id, "name": winner.name} if winner is not None else None
    await emit(session, event.id, LiveEventType.EVENT_FINISHED, {"winner": who})
    await _seasons_follow(session, event.id, SeasonChange.EVENT_FINISHED)


async def cancelled(session: AsyncSession, event: Event) -> None:
    await emit(session, event.id, LiveEventType.EVENT_CANCELLED, {"status": str(event.status)})


async def deleted(session: AsyncSession, event_id: str) -> None:
    """The event is about to be deleted (its seasons are read before they let go of it)."""
    await emit(session, event_id, LiveEventType.EVENT_DELETED, {})
    await _seasons_follow(session, event_id, SeasonChange.DELETED)


async def updated(session: AsyncSession, event: Event) -> None:
    await emit(session, event.id, LiveEventType.EVENT_UPDATED, {"name": event.name, "version": event.version})


async def registered(session: AsyncSession, event: Event, entries: Sequence[Entry]) -> None:
    """Entries registered by one request (one, or a whole list: ``count`` of them, the first
    ``LISTED`` named)."""
    await emit(
        session,
        event.id,
        LiveEventType.ENTRY_REGISTERED,
        {"entries": [{"entry_id": e.id, "name": e.name} for e in entries[:LISTED]], "count": len(entries)},
    )


async def dropped(session: AsyncSession, event: Event, entry: Entry, stage: Stage | None) -> None:
    await emit(session, event.id, LiveEventType.ENTRY_DROPPED, {"entry_id": entry.id, "name": entry.name})
    if stage is not None:
        await standings_changed(session, event, stage)


async def checked_in(session: AsyncSession, event: Event, entry: Entry) -> None:
    await emit(
        session,
        event.id,
        LiveEventType.ENTRY_CHECKED_IN,
        {"entry_id": entry.id, "checked_in": entry.checked_in_at is not None},
    )


# --------------------------------------------------------------------------- seasons
async def season_updated(session: AsyncSession, season_id: str, reason: SeasonChange, event_id: str) -> None:
    """``season.updated`` for the season, keyed by it: once per season per transaction (the first
    change names ``reason``, and ``event_id`` the event that changed it)."""
    pending = _pending(session)
    if season_id in pending.seasons:
        return
    pending.seasons.add(season_id)
    data = {"season_id": season_id, "reason": str(reason), "event_id": event_id}
    await _emit(session, season_id, LiveEventType.SEASON_UPDATED, data)


async def _seasons_follow(session: AsyncSession, event_id: str, reason: SeasonChange) -> None:
    """``season.updated`` for every season the event is counted in (in the seasons' order, so that
    two transactions lock them in the same order); read once per event and transaction."""
    pending = _pending(session)
    if event_id in pending.followed:
        return
    pending.followed.add(event_id)
    seasons = await session.execute(
        select(SeasonEvent.season_id).where(SeasonEvent.event_id == event_id).order_by(SeasonEvent.season_id)
    )
    for season_id in seasons.scalars():
        await season_updated(session, season_id, reason, event_id)


# --------------------------------------------------------------------------- rating pools
def pool_key(pool: str) -> str:
    """The outbox key of a rating pool's rows: a name-based UUID (version 5) of the pool's key, as
    long as an event's id whatever the pool's key, never one of the events' and seasons' random ids."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"arbiter:rating-pool:{pool}"))


async def ratings_updated(session: AsyncSession, pool: str, reason: RatingChange, games: int) -> None:
    """``ratings.updated`` for the pool, keyed by it: once per pool per transaction (the first change
    names ``reason``, and ``games`` the games it rated)."""
    pending = _pending(session)
    key = pool_key(pool)
    if key in pending.pools:
        return
    pending.pools[key] = pool
    await _emit(
        session, key, LiveEventType.RATINGS_UPDATED, {"pool": pool, "reason": str(reason), "games": games}
    )
