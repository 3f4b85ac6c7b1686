"""The server's keys (docs/operations.md "Keys"): what seals the secrets Arbiter has to read back —
webhook signing secrets, and the answers' key that stored idempotent answers are found and sealed
by — so that a copy of the database, with every public value beside it, yields none of them.

- The keys are ``ARBITER_SECRET_KEY``'s (comma-separated; its former name ``ARBITER_WEBHOOK_KEY`` is
  read when it is unset): the first seals, every one opens. Unset, the embedded default (a SQLite
  file) keeps its own in a key file beside the database, ``<database>.key``, created with mode 0600
  the first time (one key a line, the first sealing); a database in memory draws one for the
  process; a Postgres deployment refuses to start: its processes, on several machines, must share
  one key, which only the operator can hand them.
- Each use has its own sub-key, HMAC-SHA256 of the key and the use's name, so that one key serves
  the webhook secrets and the answers' key without one of them unlocking the other.
- A sealed value is a Fernet token (AES-128-CBC with HMAC-SHA256) prefixed ``fernet:``. What an
  earlier version wrote still opens — secrets in clear (``plain:``, sealed by the first process that
  starts with a key), and tokens under its derivation (the key's SHA-256) — and ``rotate`` re-seals
  every one under the first key.
- The answers' key is 32 random bytes drawn once per database and kept sealed (``sealing_keys``); a
  process opens it as it starts (``Keyring.load``) and keeps it. Rotating the server's key re-seals
  it without changing it, so the answers stored before a rotation still replay.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from sqlalchemy import select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import SealingKey, Webhook
from app.db.session import write_turn
from app.settings import Settings

KEYRING_KEY = "keyring"
SETTING = "ARBITER_SECRET_KEY"
KEY_FILE_SUFFIX = ".key"
ANSWERS = "idempotency"  # the sealing_keys row of the answers' key

# the uses' names: each derives its own sub-key of every server key
WEBHOOK_SECRETS = b"webhook secrets"
SEALING_KEYS = b"sealing keys"


class KeyProblem(Exception):
    """The server's keys cannot be had or do not open what the database holds: one line for the
    operator, naming the setting."""


# --------------------------------------------------------------------------- where the keys come from
def key_file_of(database_url: str) -> Path | None:
    """The key file beside a SQLite database file (None for Postgres and for a database in memory)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database + KEY_FILE_SUFFIX)


def read_key_file(path: Path) -> tuple[str, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyProblem(f"cannot read the key file {path}: {exc}") from None
    keys = tuple(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))
    if not keys:
        raise KeyProblem(f"the key file {path} holds no key: restore it from its backup, or set {SETTING}")
    return keys


def write_key_file(path: Path, keys: tuple[str, ...], *, replace: bool) -> None:
    """``keys`` into ``path`` (mode 0600), whole or not at all: written beside it, then moved in —
    over the old file with ``replace``, else only if none is there (FileExistsError otherwise)."""
    fd, name = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, stat.S_IRUSR | stat.S_IWUSR)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(k + "\n" for k in keys))
            f.flush()
            os.fsync(f.fileno())
        if replace:
            os.replace(name, path)
        else:
            os.link(name, path)  # atomic, and refuses a file another process made meanwhile
    finally:
        if os.path.exists(name):
            os.unlink(name)


def new_key() -> str:
    """A server key: 256 random bits."""
    return secrets.token_urlsafe(32)


def server_keys(settings: Settings) -> tuple[tuple[str, ...], str]:
    """The server's keys (the first sealing) and where they come from, for the start-up line."""
    if settings.secret_keys:
        named = SETTING if settings.arbiter_secret_key else "ARBITER_WEBHOOK_KEY"
        return settings.secret_keys, named
    path = key_file_of(settings.database_url)
    if path is not None:
        if not path.exists():
            try:
                write_key_file(path, (new_key(),), replace=False)
            except FileExistsError:
                pass  # another process of this database made it first: use that one
            except OSError as exc:
                raise KeyProblem(f"cannot create the key file {path}: {exc} (or set {SETTING})") from None
        return read_key_file(path), f"the key file {path}"
    if settings.is_sqlite:
        return (new_key(),), "a key of this process (the database is in memory)"
    raise KeyProblem(
        f"{SETTING} is not set: a Postgres deployment needs it to seal webhook secrets and stored "
        "answers (a long random string, the same for the API and every worker)"
    )


# --------------------------------------------------------------------------- sealing
def _subkey(key: str, use: bytes) -> bytes:
    return base64.urlsafe_b64encode(hmac.new(key.encode(), b"arbiter " + use, hashlib.sha256).digest())


def _former(key: str) -> bytes:
    """The derivation webhook secrets were sealed with before the keys had uses (still opened)."""
    return base64.urlsafe_b64encode(hashlib.sha256(key.encode()).digest())


class SecretBox:
    """Secrets at rest for one use: Fernet under the use's sub-key of each server key (the first
    seals, any opens, so a key can be rotated). With no key it seals nothing."""

    def __init__(self, keys: tuple[str, ...] = (), use: bytes = WEBHOOK_SECRETS) -> None:
        self.keys = keys
        fernets = [Fernet(_subkey(k, use)) for k in keys]
        if use == WEBHOOK_SECRETS:
            fernets += [Fernet(_former(k)) for k in keys]
        self._fernet = MultiFernet(fernets) if fernets else None
        self._first = Fernet(_subkey(keys[0], use)) if keys else None

    def seal(self, secret: str) -> str:
        if self._fernet is None:
            raise ValueError(f"no server key: set {SETTING}")
        return "fernet:" + self._fernet.encrypt(secret.encode()).decode()

    def open(self, stored: str) -> str:
        scheme, _, value = stored.partition(":")
        if scheme == "plain":  # written in clear by an earlier version
            return value
        if self._fernet is None:
            raise ValueError(f"the secret is sealed and no server key is set ({SETTING})")
        try:
            return self._fernet.decrypt(value.encode()).decode()
        except InvalidToken:
            raise ValueError(f"the secret was sealed with a key {SETTING} no longer holds") from None

    def sealed_by_first(self, stored: str) -> bool:
        """Whether ``stored`` opens under the first key alone (the others could go)."""
        scheme, _, value = stored.partition(":")
        if scheme != "fernet" or self._first is None:
            return False
        try:
            self._first.decrypt(value.encode())
        except InvalidToken:
            return False
        return True


class Keyring:
    """One process's server keys, the boxes they make, and the answers' key once ``load`` opened it."""

    def __init__(self, keys: tuple[str, ...], source: str = "") -> None:
        if not keys:
            raise KeyProblem(f"no server key: set {SETTING}")
        self.keys, self.source = keys, source
        self.webhook_secrets = SecretBox(keys, WEBHOOK_SECRETS)
        self.sealing_keys = SecretBox(keys, SEALING_KEYS)
        self._answers: bytes | None = None

    @classmethod
    def of(cls, settings: Settings) -> Keyring:
        return cls(*server_keys(settings))

    @property
    def answers_key(self) -> bytes:
        """The key stored idempotent answers are found and sealed by (``load`` first)."""
        if self._answers is None:
            raise RuntimeError("the keyring was not loaded (Keyring.load at start-up)")
        return self._answers

    def _open_answers(self, sealed: str) -> bytes:
        try:
            return base64.b64decode(self.sealing_keys.open(sealed))
        except ValueError:
            raise KeyProblem(
                f"the database's keys were sealed with a server key this process does not hold: give it "
                f"the key its other processes run with (in {SETTING}, the new key first and the former "
                "one after it while rotating)"
            ) from None

    async def load(self, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
        """Open the answers' key (drawn and stored the first time), and seal any webhook secret an
        earlier version stored in clear: one short transaction, committed."""
        async with write_turn(sessionmaker), sessionmaker() as s:
            row = await s.get(SealingKey, ANSWERS) or await self._draw(s)
            answers = self._open_answers(row.sealed)
            await _seal_plain_secrets(s, self.webhook_secrets)
            await s.commit()
        self._answers = answers

    async def _draw(self, session: AsyncSession) -> SealingKey:
        """The answers' key, drawn and stored; or the one another process stored meanwhile."""
        drawn = base64.b64encode(os.urandom(32)).decode()
        row = SealingKey(purpose=ANSWERS, sealed=self.sealing_keys.seal(drawn))
        session.add(row)
        try:
            await session.flush()
        except IntegrityError:
            await session.rollback()
            theirs = await session.get(SealingKey, ANSWERS)
            if theirs is None:
                raise
            return theirs
        return row


async def _seal_plain_secrets(session: AsyncSession, box: SecretBox) -> int:
    rows = (
        await session.execute(select(Webhook.id, Webhook.secret).where(Webhook.secret.like("plain:%")))
    ).all()
    for hook_id, stored in rows:
        await session.execute(
            update(Webhook)
            .where(Webhook.id == hook_id, Webhook.secret == stored)
            .values(secret=box.seal(box.open(stored)))
        )
    return len(rows)


def keyring_of(session: AsyncSession) -> Keyring:
    keyring = session.info.get(KEYRING_KEY)
    if not isinstance(keyring, Keyring):
        raise RuntimeError("the session carries no keyring (runtime.session_info)")
    return keyring


# --------------------------------------------------------------------------- rotation
@dataclass(frozen=True)
class Rotated:
    webhook_secrets: int
    sealing_keys: int


async def rotate(session: AsyncSession, keyring: Keyring) -> Rotated:
    """Re-seal every stored secret under the first server key (not committed: the caller commits).
    Refused whole (``KeyProblem``) when one opens under none of the keys; afterwards each opens under
    the first key alone."""
    hooks = list((await session.execute(select(Webhook).order_by(Webhook.id).with_for_update())).scalars())
    kept = list(
        (await session.execute(select(SealingKey).order_by(SealingKey.purpose).with_for_update())).scalars()
    )
    # every one opened before any is changed: one that opens under no key refuses the whole rotation
    secrets_ = [_opened(keyring.webhook_secrets, h.secret, f"webhook {h.id}'s secret") for h in hooks]
    sealed = [_opened(keyring.sealing_keys, k.sealed, f"the {k.purpose} key") for k in kept]
    for hook, secret in zip(hooks, secrets_, strict=True):
        hook.secret = keyring.webhook_secrets.seal(secret)
    for row, value in zip(kept, sealed, strict=True):
        row.sealed = keyring.sealing_keys.seal(value)
    await session.flush()
    return Rotated(webhook_secrets=len(hooks), sealing_keys=len(kept))


def _opened(box: SecretBox, stored: str, what: str) -> str:
    try:
        return box.open(stored)
    except ValueError:
        raise KeyProblem(
            f"{what} opens under none of the keys given: add the key it was sealed with to {SETTING} "
            "(after the new one); nothing was changed"
        ) from None


async def not_sealed_by_first(session: AsyncSession, keyring: Keyring) -> list[str]:
    """What still needs a key other than the first (a process without the new key wrote it, or
    the rotation has not run): webhooks by id, sealed keys by purpose."""
    hooks = (await session.execute(select(Webhook.id, Webhook.secret).order_by(Webhook.id))).all()
    kept = (await session.execute(select(SealingKey.purpose, SealingKey.sealed))).all()
    return [f"webhook {i}" for i, v in hooks if not keyring.webhook_secrets.sealed_by_first(v)] + [
        f"the {p} key" for p, v in kept if not keyring.sealing_keys.sealed_by_first(v)
    ]
