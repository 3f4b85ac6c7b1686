"""Nothing recoverable from a copy of the database (Postgres and SQLite, each a database of the
test's own; docs/operations.md "Keys").

The dump: the README's tour is played — an event, five entries registered with its
``Idempotency-Key: reg-<name>`` — plus an event made with a guessable key and a webhook with its
secret; then a thief takes the dump (``pg_dump``; the SQLite file and its WAL as they lie on disk),
reads every table the database lists, and tries every public value — the event's and the entries'
ids, the routes, the scopes the source code builds, the README's key patterns — as the keys the
source code derives. Nothing they hold is a token or a secret in clear, and nothing opens.

The keys: the embedded default makes its own key file (mode 0600); ``arbiter rotate-keys`` re-seals
every stored secret under the new key, after which the old key goes — deliveries still sign with the
endpoint's secret and idempotent requests still replay; a process with only the old key, a Postgres
deployment with no key, and a rotation missing a key are refused in one line."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import itertools
import secrets
import sqlite3
import stat
import subprocess
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import standardwebhooks
from cryptography.exceptions import InvalidTag
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy import select
from sqlalchemy.engine import make_url

from app.cli import migrate
from app.db.models import SealingKey, Webhook
from app.main import create_app
from app.services.keyring import KeyProblem, Keyring
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, Api, api_client, bearer
from tests.support.live import receiver
from tests.support.processes import arbiter, env
from tests.support.services import admin_execute, in_thread, server_url

README_PLAYERS = ("Ada", "Grace", "Alan", "Barbara", "Claude")  # README.md's tour
EVENT_KEY = "make-tuesday-swiss"
ROLES = ("admin", "organizer", "staff", "season", "entry", "anonymous")


@dataclass
class Fresh:
    backend: str
    url: str
    sqlite_file: Path | None = None


@pytest.fixture(params=["postgres", "sqlite"])
def fresh(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    """A migrated database of the test's own: nothing sealed in it yet, no key file beside it."""
    if request.param == "sqlite":
        path = tmp_path / "arbiter.db"
        url = f"sqlite+aiosqlite:///{path}"
        in_thread(migrate, url)
        yield Fresh("sqlite", url, path)
        return
    server = server_url()
    name = f"arbiter_dump_{uuid.uuid4().hex[:10]}"
    in_thread(asyncio.run, admin_execute(server, f'CREATE DATABASE "{name}"'))
    url = make_url(server).set(database=name).render_as_string(hide_password=False)
    in_thread(migrate, url)
    yield Fresh("postgres", url)
    in_thread(asyncio.run, admin_execute(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
async def served(fresh: Fresh) -> AsyncIterator[tuple[Api, Fresh]]:
    """The API as deployed: on Postgres with a key of the operator's, on SQLite with none set (the
    embedded default keeps its own key file)."""
    settings = Settings(
        database_url=fresh.url,
        redis_url=None,
        arbiter_admin_token=ADMIN_TOKEN,
        arbiter_sweep_seconds=3600,
        arbiter_secret_key=secrets.token_urlsafe(32) if fresh.backend == "postgres" else None,
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app), api_client(app, fresh.backend) as api:
        yield api, fresh
        await api.drain_jobs()


@dataclass
class Tour:
    """What the tour handed out once (the secrets) and what anyone can know (the public values)."""

    secrets: dict[str, str] = field(default_factory=dict)
    event_ids: list[str] = field(default_factory=list)
    entry_ids: list[str] = field(default_factory=list)
    webhook_ids: list[str] = field(default_factory=list)
    client_keys: list[str] = field(default_factory=list)


async def play_the_tour(api: Api) -> Tour:
    tour = Tour()
    body = {
        "name": "Tuesday Swiss",
        "game": "generic",
        "settings": {"capacity": 16, "stages": [{"format": "swiss", "rounds": 2}]},
    }
    for key in (None, EVENT_KEY):  # the README's (no key), and one made with a guessable key
        headers = {**api.admin(), **({"Idempotency-Key": key} if key else {})}
        r = await api.client.post("/v1/events", json=body, headers=headers)
        assert r.status_code == 201, r.text
        tour.event_ids.append(r.json()["id"])
        tour.secrets[f"organizer token of {r.json()['id']}"] = r.json()["organizer_token"]
    event_id, organizer = tour.event_ids[1], tour.secrets[f"organizer token of {tour.event_ids[1]}"]
    for name in README_PLAYERS:
        r = await api.client.post(
            f"/v1/events/{event_id}/entries",
            json={"name": name},
            headers={**bearer(organizer), "Idempotency-Key": f"reg-{name}"},
        )
        assert r.status_code == 201, r.text
        tour.entry_ids.append(r.json()["id"])
        tour.secrets[f"entry token of {name}"] = r.json()["entry_token"]
    # a public address literal resolves without a lookup; it wants only event.deleted, never sent here
    r = await api.client.post(
        f"/v1/events/{event_id}/webhooks",
        json={"url": "http://1.1.1.1/hook", "events": ["event.deleted"]},
        headers=bearer(organizer),
    )
    assert r.status_code == 201, r.text
    tour.webhook_ids.append(r.json()["id"])
    tour.secrets["webhook secret"] = r.json()["secret"]
    tour.client_keys = [EVENT_KEY, *(f"reg-{n}" for n in README_PLAYERS)]
    return tour


# --------------------------------------------------------------------------- what the thief holds
def dump_bytes(fresh: Fresh) -> bytes:
    """The database as a copy of it holds it: ``pg_dump``'s output, or the SQLite file and its WAL."""
    if fresh.sqlite_file is not None:
        files = [fresh.sqlite_file, Path(f"{fresh.sqlite_file}-wal")]
        return b"".join(p.read_bytes() for p in files if p.exists())
    libpq = make_url(fresh.url).set(drivername="postgresql").render_as_string(hide_password=False)
    done = subprocess.run(["pg_dump", "--no-owner", libpq], capture_output=True, timeout=120, check=True)
    return done.stdout


def every_row(fresh: Fresh) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table the database lists (not the tables the code names)."""
    if fresh.sqlite_file is not None:
        with sqlite3.connect(f"file:{fresh.sqlite_file}?mode=ro", uri=True) as conn:
            names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {n: list(conn.execute(f'SELECT * FROM "{n}"')) for n in names}
    return in_thread(asyncio.run, _pg_rows(fresh.url))  # type: ignore[no-any-return]


async def _pg_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    import asyncpg

    u = make_url(url)
    conn = await asyncpg.connect(host=u.host, port=u.port or 5432, user=u.username, database=u.database)
    try:
        names = [
            r[0] for r in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        ]
        return {n: [tuple(r) for r in await conn.fetch(f'SELECT * FROM "{n}"')] for n in names}
    finally:
        await conn.close()


def public_values(tour: Tour) -> list[str]:
    """What anyone may know or guess: ids that URLs and pages show, names, the routes, the README's
    key patterns, the scopes the source code builds of them."""
    ids = tour.event_ids + tour.entry_ids + tour.webhook_ids
    routes = ["POST /v1/events"] + [f"POST /v1/events/{e}/entries" for e in tour.event_ids]
    words = ["", "arbiter", "secret", "key", ADMIN_TOKEN, "Tuesday Swiss", *README_PLAYERS]
    return list(dict.fromkeys([*ids, *routes, *words, *tour.client_keys]))


def scopes(tour: Tour) -> list[str]:
    """``Principal.scope`` of every caller the tour could have had, with every route."""
    who = [
        f"{role}:{event}:{entry}"
        for role in ROLES
        for event in ["", *tour.event_ids]
        for entry in ["", *tour.entry_ids]
    ]
    who.append("anonymous")
    routes = ["POST /v1/events"] + [f"POST /v1/events/{e}/entries" for e in tour.event_ids]
    return [f"{w}|{r}" for w in who for r in routes]


# --------------------------------------------------------------------------- what the thief tries
def _derivations(material: bytes, candidates: list[bytes]) -> list[tuple[str, bytes]]:
    """(row id, cipher key) pairs the source code could derive from ``material``: unkeyed, and keyed
    by each candidate server or answers' key."""
    out = [
        (
            hashlib.sha256(b"arbiter idempotency row\0" + material).hexdigest(),
            hashlib.sha256(b"arbiter idempotency seal\0" + material).digest(),
        )
    ]
    for key in candidates:
        out.append(
            (
                hmac.new(key, b"arbiter idempotency row\0" + material, hashlib.sha256).hexdigest(),
                hmac.new(key, b"arbiter idempotency seal\0" + material, hashlib.sha256).digest(),
            )
        )
    return out


def _fernets(candidates: list[str]) -> list[Fernet]:
    out = []
    for value in candidates:
        raw = value.encode()
        out.append(Fernet(base64.urlsafe_b64encode(hashlib.sha256(raw).digest())))
        for use in (b"webhook secrets", b"sealing keys"):
            out.append(
                Fernet(base64.urlsafe_b64encode(hmac.new(raw, b"arbiter " + use, hashlib.sha256).digest()))
            )
    return out


def _open_fernet(stored: str, fernets: list[Fernet]) -> str | None:
    scheme, _, value = stored.partition(":")
    if scheme == "plain":
        return value
    for f in fernets:
        try:
            return f.decrypt(value.encode()).decode()
        except (InvalidToken, ValueError):
            continue
    return None


@dataclass
class Haul:
    """What the thief got: rows found by their derived id, answers opened, secrets opened."""

    rows_found: int = 0
    answers_opened: list[str] = field(default_factory=list)
    secrets_opened: list[str] = field(default_factory=list)


def steal(rows: dict[str, list[tuple[Any, ...]]], tour: Tour) -> Haul:
    haul = Haul()
    guesses = public_values(tour)
    fernets = _fernets(guesses)
    # keys kept sealed in the database (a server's own keys), opened if any guess opens them
    answers_keys = [g.encode() for g in guesses]
    for row in rows.get("sealing_keys", []):
        opened = next((v for v in row if isinstance(v, str) and _open_fernet(v, fernets) is not None), None)
        if opened is not None:
            plain = _open_fernet(opened, fernets)
            assert plain is not None
            haul.secrets_opened.append(plain)
            answers_keys.append(base64.b64decode(plain))
    stored = {str(r[0]): bytes(r[2]) for r in rows.get("idempotency_keys", []) if r[2] is not None}
    for scope, key in itertools.product(scopes(tour), tour.client_keys):
        for row_id, cipher in _derivations(f"{scope}\0{key}".encode(), answers_keys):
            if row_id in stored:
                haul.rows_found += 1
            for rid, sealed in [(row_id, stored[row_id])] if row_id in stored else stored.items():
                with contextlib.suppress(InvalidTag, ValueError):
                    haul.answers_opened.append(
                        AESGCM(cipher).decrypt(sealed[:12], sealed[12:], rid.encode()).decode()
                    )
    for table, table_rows in rows.items():
        for row in table_rows:
            for value in row:
                if isinstance(value, str) and value.startswith(("plain:", "fernet:")):
                    opened = _open_fernet(value, fernets)
                    if opened is not None:
                        haul.secrets_opened.append(f"{table}: {opened}")
    return haul


async def test_a_dump_with_every_public_value_yields_no_token_and_no_secret(
    served: tuple[Api, Fresh],
) -> None:
    api, fresh = served
    tour = await play_the_tour(api)
    # the tour's keys do replay: the answers are there, for whoever holds the right keys
    organizer = tour.secrets[f"organizer token of {tour.event_ids[1]}"]
    again = await api.client.post(
        f"/v1/events/{tour.event_ids[1]}/entries",
        json={"name": "Ada"},
        headers={**bearer(organizer), "Idempotency-Key": "reg-Ada"},
    )
    assert again.headers.get("idempotent-replayed") == "true"
    assert again.json()["entry_token"] == tour.secrets["entry token of Ada"]

    dump = await asyncio.to_thread(dump_bytes, fresh)
    rows = await asyncio.to_thread(every_row, fresh)
    assert len(rows.get("idempotency_keys", [])) == 6, rows.get("idempotency_keys")  # stored, sealed
    in_clear = [what for what, value in tour.secrets.items() if value.encode() in dump]
    body = tour.secrets["webhook secret"].removeprefix("whsec_")
    if body.encode() in dump or base64.b64decode(body) in dump:
        in_clear.append("webhook secret (its bytes)")
    haul = steal(rows, tour)
    opened = [
        what
        for what, value in tour.secrets.items()
        if any(value in text for text in haul.answers_opened + haul.secrets_opened)
    ]
    print(
        f"\n{fresh.backend}: dump {len(dump)} bytes, {sum(len(r) for r in rows.values())} rows in "
        f"{len(rows)} tables; {len(tour.secrets)} secrets handed out; in clear: {len(in_clear)}; "
        f"rows found by a derived id: {haul.rows_found}; answers opened: {len(haul.answers_opened)}; "
        f"secrets opened: {len(haul.secrets_opened)}; tokens and secrets recovered: {len(opened)}"
    )
    assert in_clear == [], in_clear
    assert opened == [] and haul.answers_opened == [] and haul.secrets_opened == [], (opened, haul)
    assert haul.rows_found == 0  # not even which key a row answers is learnt


# --------------------------------------------------------------------------- the keys
def settings_of(fresh: Fresh, key: str | None, **more: Any) -> Settings:
    return Settings(
        database_url=fresh.url,
        redis_url=None,
        arbiter_admin_token=ADMIN_TOKEN,
        arbiter_sweep_seconds=3600,
        arbiter_webhook_allow_private=True,  # the receiver listens on the loopback
        arbiter_secret_key=key,
        **more,
    )


@asynccontextmanager
async def serving(fresh: Fresh, key: str | None, **more: Any) -> AsyncIterator[Api]:
    app = create_app(settings_of(fresh, key, **more))
    async with app.router.lifespan_context(app), api_client(app, fresh.backend) as api:
        yield api
        await api.drain_jobs()


async def register(api: Api, event_id: str, token: str, name: str) -> Any:
    r = await api.client.post(
        f"/v1/events/{event_id}/entries",
        json={"name": name},
        headers={**bearer(token), "Idempotency-Key": f"reg-{name}"},
    )
    assert r.status_code == 201, r.text
    return r


async def stored(api: Api) -> tuple[str, str]:
    """The webhook's stored secret and the sealed answers' key, as the database holds them."""
    async with api.app.state.sessionmaker() as s:
        secret = (await s.execute(select(Webhook.secret))).scalar_one()
        sealed = (await s.execute(select(SealingKey.sealed))).scalar_one()
    return secret, sealed


def rotate(fresh: Fresh, key: str | None) -> str:
    done = arbiter("rotate-keys", environ=env(DATABASE_URL=fresh.url, ARBITER_SECRET_KEY=key))
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def refused(done: Any, *words: str) -> str:
    out = f"{done.stdout}{done.stderr}"
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1 and "Traceback" not in out and len(lines) == 1, out
    assert all(w in lines[0] for w in words), lines[0]
    return lines[0]


async def test_rotate_keys_then_the_old_key_can_go(fresh: Fresh) -> None:
    key_file = Path(f"{fresh.sqlite_file}.key") if fresh.sqlite_file else None
    old = None if key_file else "the-old-key-" + "o" * 32
    async with receiver() as rec:
        async with serving(fresh, old) as api:
            r = await api.client.post(
                "/v1/events", json={"name": "Tuesday Swiss", "game": "generic"}, headers=api.admin()
            )
            event_id, token = r.json()["id"], r.json()["organizer_token"]
            r = await api.client.post(
                f"/v1/events/{event_id}/webhooks",
                json={"url": rec.url, "events": ["entry.registered"]},
                headers=bearer(token),
            )
            assert r.status_code == 201, r.text
            secret = r.json()["secret"]
            ada = (await register(api, event_id, token, "Ada")).json()
            standardwebhooks.Webhook(secret).verify(*_signed((await rec.wait_for(1))[0]))
            before = await stored(api)
        if key_file is not None:  # the embedded default made its own key, for its owner alone
            assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
            (old,) = key_file.read_text().split()

        if key_file is None:
            said = rotate(fresh, "the-new-key-" + "n" * 32 + "," + old)
            assert said == (
                "re-sealed 1 webhook secrets and 1 sealed keys under the first key of ARBITER_SECRET_KEY; "
                "the other keys can go"
            ), said
            new: str | None = "the-new-key-" + "n" * 32
        else:
            said = rotate(fresh, None)
            assert said.startswith("re-sealed 1 webhook secrets and 1 sealed keys under a new key in "), said
            (drawn,) = key_file.read_text().split()  # the old key is gone from the file
            assert drawn != old and stat.S_IMODE(key_file.stat().st_mode) == 0o600
            new = None  # the embedded default reads its file

        # the old key alone opens nothing any more: a process holding only it is refused
        with pytest.raises(KeyProblem, match="does not hold"):
            async with serving(fresh, old):
                pass
        async with serving(fresh, new) as api:
            after = await stored(api)
            assert after[0] != before[0] and after[1] != before[1]  # re-sealed
            for sealed in after:
                with pytest.raises(ValueError, match="no longer holds"):
                    Keyring((old,)).webhook_secrets.open(sealed)
            # the retried registration replays the first answer, its token with it
            again = await register(api, event_id, token, "Ada")
            assert again.headers["idempotent-replayed"] == "true" and again.json() == ada
            # a new change is delivered, signed with the secret the endpoint was given
            await register(api, event_id, token, "Grace")
            got = await rec.wait_for(2)
            assert [d.json["type"] for d in got] == ["entry.registered"] * 2
            standardwebhooks.Webhook(secret).verify(*_signed(got[1]))
            await api.drain_jobs()
            r = await api.client.get(
                f"/v1/events/{event_id}/webhooks/{(await _hook_id(api))}/deliveries", headers=bearer(token)
            )
            assert [d["status"] for d in r.json()["items"]] == ["delivered", "delivered"]


def _signed(delivery: Any) -> tuple[bytes, dict[str, str]]:
    return delivery.body, dict(delivery.headers)


async def _hook_id(api: Api) -> str:
    async with api.app.state.sessionmaker() as s:
        return str((await s.execute(select(Webhook.id))).scalar_one())


async def test_a_missing_or_wrong_key_is_refused_in_one_line(fresh: Fresh) -> None:
    if fresh.backend == "postgres":  # no key: a Postgres deployment does not start
        for cmd in ("serve", "worker"):
            extra = {"REDIS_URL": "redis://127.0.0.1:6379/0"} if cmd == "worker" else {}
            done = arbiter(cmd, environ=env(DATABASE_URL=fresh.url, ARBITER_SECRET_KEY=None, **extra))
            refused(done, "ARBITER_SECRET_KEY is not set", "Postgres")
    right, other = "the-right-key-" + "r" * 32, "another-key-" + "a" * 32
    async with serving(fresh, right):  # the answers' key is sealed under the right key
        pass
    async with serving(fresh, f"{other},{right}") as api:  # this process seals under another first
        r = await api.client.post("/v1/events", json={"name": "Cup", "game": "generic"}, headers=api.admin())
        token = r.json()["organizer_token"]
        r = await api.client.post(
            f"/v1/events/{r.json()['id']}/webhooks", json={"url": "http://1.1.1.1/h"}, headers=bearer(token)
        )
        assert r.status_code == 201, r.text
        before = await stored(api)
    # a wrong key only: serving and rotating are refused
    wrong = env(DATABASE_URL=fresh.url, ARBITER_SECRET_KEY="a-wrong-key")
    refused(arbiter("serve", "--port", "1", environ=wrong), "does not hold", "ARBITER_SECRET_KEY")
    refused(arbiter("rotate-keys", environ=wrong), "does not hold")
    # a rotation that lacks the key one secret was sealed with is refused whole: nothing changes
    lacking = env(DATABASE_URL=fresh.url, ARBITER_SECRET_KEY=right)
    refused(arbiter("rotate-keys", environ=lacking), "webhook", "opens under none of the keys", "nothing")
    async with serving(fresh, f"{other},{right}") as api:
        assert await stored(api) == before


async def test_what_an_earlier_version_stored_is_sealed_or_still_opens(fresh: Fresh) -> None:
    """A secret an earlier version kept in clear is sealed at the first start; one it sealed under
    ``ARBITER_WEBHOOK_KEY`` (the key's SHA-256 as the Fernet key) still opens, and a rotation
    re-seals it under the server key's sub-key; the setting's former name is still read."""
    legacy = Fernet(base64.urlsafe_b64encode(hashlib.sha256(b"the-webhook-key").digest()))
    async with serving(fresh, None, arbiter_webhook_key="the-webhook-key") as api:
        r = await api.client.post("/v1/events", json={"name": "Cup", "game": "generic"}, headers=api.admin())
        event_id, token = r.json()["id"], r.json()["organizer_token"]
        shown = []
        for _ in range(2):
            r = await api.client.post(
                f"/v1/events/{event_id}/webhooks", json={"url": "http://1.1.1.1/h"}, headers=bearer(token)
            )
            shown.append((r.json()["id"], r.json()["secret"]))
        async with api.app.state.sessionmaker() as s:  # as an earlier version left them
            (clear_id, clear), (old_id, old) = shown
            (await s.get(Webhook, clear_id)).secret = f"plain:{clear}"  # type: ignore[union-attr]
            sealed_before = "fernet:" + legacy.encrypt(old.encode()).decode()
            (await s.get(Webhook, old_id)).secret = sealed_before  # type: ignore[union-attr]
            await s.commit()
    async with serving(
        fresh, None, arbiter_webhook_key="the-webhook-key"
    ) as api:  # the next start seals the one in clear
        async with api.app.state.sessionmaker() as s:
            now = {h.id: h.secret for h in (await s.execute(select(Webhook))).scalars()}
        box = Keyring(("the-webhook-key",)).webhook_secrets
        assert now[clear_id].startswith("fernet:") and clear not in now[clear_id]
        assert box.open(now[clear_id]) == clear and box.open(now[old_id]) == old
        assert not box.sealed_by_first(now[old_id])  # opens, but only by the former derivation
    former = env(DATABASE_URL=fresh.url, ARBITER_SECRET_KEY=None, ARBITER_WEBHOOK_KEY="the-webhook-key")
    done = arbiter("rotate-keys", environ=former)
    assert done.returncode == 0 and "under the first key of ARBITER_WEBHOOK_KEY" in done.stdout, done.stderr
    async with (
        serving(fresh, None, arbiter_webhook_key="the-webhook-key") as api,
        api.app.state.sessionmaker() as s,
    ):
        now = {h.id: h.secret for h in (await s.execute(select(Webhook))).scalars()}
    assert all(box.sealed_by_first(v) for v in now.values()) and box.open(now[old_id]) == old
    with pytest.raises(InvalidToken):
        legacy.decrypt(now[old_id].removeprefix("fernet:").encode())


def test_processes_starting_at_once_agree_on_one_key_file(tmp_path: Path) -> None:
    """Several processes of one embedded database starting together make one key file between them
    (written aside, then linked into place): every one reads the same key."""
    from concurrent.futures import ThreadPoolExecutor

    from app.services.keyring import server_keys

    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'arbiter.db'}", arbiter_secret_key=None
    )
    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(lambda _: server_keys(settings), range(32)))
    assert len({keys for keys, _ in got}) == 1 and len(got[0][0]) == 1
    assert got[0][1] == f"the key file {tmp_path / 'arbiter.db.key'}"
    assert [p.name for p in tmp_path.iterdir()] == ["arbiter.db.key"]  # nothing left aside
    assert stat.S_IMODE((tmp_path / "arbiter.db.key").stat().st_mode) == 0o600
