"""Configuration, from the environment only (pydantic-settings).

With nothing set, the embedded default: a SQLite file and jobs run in-process.
With ``DATABASE_URL`` (postgresql+asyncpg://…, or the ``postgres://…`` hosting platforms hand out:
app/core/database_url.py) and ``REDIS_URL``, the production shape: Postgres and arq workers on Redis.
Every secret may come from a file instead, ``<NAME>_FILE`` (docker secrets).
"""

from __future__ import annotations

import ipaddress
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from app.core import database_url as db_url

# The settings that hold a secret: each may also be given as the content of a file,
# ``<NAME>_FILE`` (docs/operations.md "Secrets in files").
SECRETS = (
    "database_url",
    "database_password",
    "redis_url",
    "arbiter_admin_token",
    "arbiter_metrics_token",
    "arbiter_secret_key",
    "arbiter_webhook_key",
)
# Variables named ARBITER_… that are read, but are no setting: `arbiter migrate`'s migrations,
# docker compose's own (.env.example), the benchmarks' pairing program; and every ARBITER_TEST_…,
# the test suite's own.
NOT_SETTINGS = (
    "ARBITER_MIGRATIONS_DIR",
    "ARBITER_IMAGE",
    "ARBITER_PORT",
    "ARBITER_API_WORKERS",
    "ARBITER_BBPPAIRINGS",
)
NOT_SETTINGS_PREFIX = "ARBITER_TEST_"


class SettingsProblem(ValueError):
    """A setting that cannot be read (a secret's file that cannot be read or is empty, a secret
    given both as itself and as its file), named in one line."""


def normalize_database_url(url: str, password: str | None = None) -> str:
    """``DATABASE_URL`` as the engine takes it (app/core/database_url.py); a ValueError naming the
    problem."""
    return db_url.normalize(url, password)


def _read_secret(name: str, path: str) -> str:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise SettingsProblem(f"{name}_FILE: cannot read {path}: {why}") from None
    value = text.rstrip("\r\n")
    if not value:
        raise SettingsProblem(f"{name}_FILE: {path} is empty")
    return value


class SecretFiles(PydanticBaseSettingsSource):
    """``<NAME>_FILE``: the file's content (trailing newlines stripped) is the secret ``NAME``;
    ``NAME`` and ``NAME_FILE`` both set is refused by name."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        environ = {k.upper(): v for k, v in os.environ.items()}
        out: dict[str, Any] = {}
        for field in SECRETS:
            name = field.upper()
            path = environ.get(f"{name}_FILE")
            if path is None:
                continue
            if name in environ:
                raise SettingsProblem(f"{name} and {name}_FILE are both set: keep one")
            out[field] = _read_secret(name, path)
        return out


def unknown_variables(environ: dict[str, str] | None = None) -> list[str]:
    """The ARBITER_… variables of the environment that are no setting (a typo, a name of the past)."""
    known = {f.upper() for f in Settings.model_fields} | {f"{f.upper()}_FILE" for f in SECRETS}
    known |= set(NOT_SETTINGS)
    env = os.environ if environ is None else environ
    return sorted(
        k
        for k in (k.upper() for k in env)
        if k.startswith("ARBITER_") and k not in known and not k.startswith(NOT_SETTINGS_PREFIX)
    )


EMBED_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _network(item: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    try:
        return ipaddress.ip_network(item, strict=False)
    except ValueError:
        raise ValueError(f"{item!r} is not an IP address or network (CIDR)") from None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    database_url: str = Field(
        default="sqlite+aiosqlite:///./arbiter.db",
        description="sqlite:///file.db, or postgres://user@host:5432/name (postgresql://… and "
        "postgresql+asyncpg://… too) with libpq's sslmode, connect_timeout, application_name, options",
    )
    database_password: str | None = Field(
        default=None, description="the database password, when DATABASE_URL carries none"
    )
    redis_url: str | None = Field(
        default=None, description="redis://host:port/db; unset runs jobs in-process"
    )
    arbiter_admin_token: str | None = Field(default=None, description="bearer token of the admin")
    arbiter_cors_origins: str = Field(default="", description="comma-separated allowed origins")
    arbiter_embed_origins: str = Field(
        default="*",
        description="comma-separated origins whose pages may frame the embeds (/embed/…); * any site",
    )
    arbiter_queue_name: str = Field(default="arbiter:queue", description="arq queue name")
    arbiter_job_stale_queued: int = Field(
        default=60, description="seconds a queued job may wait before the sweep enqueues it again"
    )
    arbiter_sweep_seconds: int = Field(default=30, description="interval of the stuck-job sweep")

    # limits (docs/api.md "Limits", docs/operations.md "Under load, faults and bad input")
    arbiter_max_body_bytes: int = Field(
        default=2 * 1024 * 1024, ge=1024, description="largest request body accepted (413 past it)"
    )
    arbiter_body_timeout: float = Field(
        default=15, gt=0, le=600, description="seconds a request body may take to arrive (408 past it)"
    )
    arbiter_heavy_burst: int = Field(
        default=20,
        ge=1,
        description="requests one client may send at once to the schedule and adjudication tools",
    )
    arbiter_heavy_per_minute: float = Field(
        default=60, gt=0, description="requests per minute one client's allowance for those tools refills by"
    )
    arbiter_auth_failures: int = Field(
        default=20, ge=1, description="unknown tokens one client address may send at once (429 past it)"
    )
    arbiter_auth_failure_window: float = Field(
        default=300,
        gt=0,
        le=86400,
        description="seconds in which that allowance of failed tokens comes back in full",
    )
    arbiter_trusted_proxies: str = Field(
        default="",
        description="comma-separated addresses or networks (CIDR) of the reverse proxies whose "
        "X-Forwarded-For names the client; unset: the client is the socket's peer",
    )
    arbiter_cpu_seconds: float = Field(
        default=10,
        gt=0,
        le=600,
        description="seconds of CPU one request's heavy computation may take (503 past it)",
    )
    arbiter_job_lease: int = Field(
        default=30, ge=5, le=3600, description="seconds a running job's lease lasts; renewed while it runs"
    )

    # observability (docs/operations.md "Observe")
    arbiter_log_format: Literal["text", "json"] = Field(
        default="text", description="one line per record: readable text, or one JSON object"
    )
    arbiter_log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(default="INFO")
    arbiter_metrics_token: str | None = Field(
        default=None, description="bearer token for GET /metrics (the admin token works too)"
    )
    arbiter_worker_metrics_port: int = Field(
        default=0, ge=0, le=65535, description="a worker serves its metrics on this port; 0: none"
    )
    arbiter_worker_metrics_host: str = Field(default="127.0.0.1")

    # workers (docs/operations.md "Scale")
    arbiter_worker_concurrency: int = Field(default=10, ge=1, description="jobs one worker runs at once")
    arbiter_worker_shutdown_wait: int = Field(
        default=25,
        ge=0,
        description="seconds a stopping worker lets running jobs finish before handing them back",
    )
    arbiter_worker_heartbeat_path: str = Field(
        default="",
        description="the file a worker writes its heartbeat to, read by `arbiter worker --check`; "
        "unset: arbiter-worker.heartbeat in the temporary directory",
    )
    arbiter_worker_heartbeat_seconds: float = Field(
        default=10,
        gt=0,
        le=300,
        description="seconds between a worker's heartbeats; `arbiter worker --check` fails past three",
    )

    # retention (docs/operations.md "Retention")
    arbiter_retain_idempotency_hours: float = Field(
        default=24, ge=0, description="hours an Idempotency-Key's answer is kept; 0 keeps them forever"
    )
    arbiter_retain_jobs_days: float = Field(
        default=7, ge=0, description="days a finished job is kept; 0 keeps them forever"
    )
    arbiter_retain_outbox_days: float = Field(
        default=7, ge=0, description="days a live-updates event is kept for reconnecting streams; 0: forever"
    )
    arbiter_retain_webhook_deliveries_days: float = Field(
        default=7, ge=0, description="days a webhook delivery stays in the delivery log; 0: forever"
    )
    arbiter_prune_seconds: int = Field(default=3600, ge=1, description="interval of the pruning")

    # live updates and webhooks (docs/api.md "Live updates", "Webhooks")
    arbiter_sse_heartbeat_seconds: float = Field(
        default=15, gt=0, le=300, description="seconds between heartbeats of an idle stream"
    )
    arbiter_sse_poll_seconds: float = Field(
        default=5, gt=0, le=300, description="a stream looks for changes at least this often"
    )
    arbiter_sse_max_streams: int = Field(default=1000, ge=1, description="live streams one API process holds")
    arbiter_sse_max_per_client: int = Field(
        default=20, ge=1, description="live streams one client address may hold in one API process"
    )
    arbiter_api_shutdown_wait: int = Field(
        default=10,
        ge=1,
        description="seconds a stopping API process waits for open streams before it ends them",
    )
    arbiter_keep_alive: int = Field(
        default=75,
        ge=1,
        le=3600,
        description="seconds an idle HTTP connection is kept open for the client's next request",
    )
    arbiter_webhook_allow_private: bool = Field(
        default=False, description="allow webhooks to private, loopback and link-local addresses"
    )
    # the server's keys (docs/operations.md "Keys")
    arbiter_secret_key: str | None = Field(
        default=None,
        description="the server's keys, comma-separated: the first seals webhook secrets and the key of "
        "stored idempotent answers, every one opens them (rotate: put the new key first, run "
        "`arbiter rotate-keys`, then drop the old); unset: the embedded default keeps its own key "
        "file beside the database, a Postgres deployment refuses to start",
    )
    arbiter_webhook_key: str | None = Field(
        default=None, description="the former name of ARBITER_SECRET_KEY, read when that is unset"
    )
    arbiter_webhook_timeout: float = Field(
        default=10,
        gt=0,
        le=50,
        description="seconds one delivery attempt may take in all, the lookup included",
    )
    arbiter_webhook_connect_timeout: float = Field(
        default=3, gt=0, le=50, description="seconds a delivery attempt waits to connect to the endpoint"
    )
    arbiter_webhook_first_byte_timeout: float = Field(
        default=5, gt=0, le=50, description="seconds a delivery attempt waits for the answer's headers"
    )
    arbiter_webhook_max_deliveries: int = Field(
        default=32, ge=1, le=1000, description="delivery attempts one process runs at once"
    )
    arbiter_webhook_max_per_receiver: int = Field(
        default=4,
        ge=1,
        le=1000,
        description="delivery attempts one process runs at once to one receiver (scheme, host, port)",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, SecretFiles(settings_cls), env_settings, dotenv_settings, file_secret_settings)

    @model_validator(mode="after")
    def _database(self) -> Settings:
        try:
            self.database_url = db_url.normalize(self.database_url, self.database_password)
        except db_url.BadDatabaseUrl as exc:
            raise ValueError(f"DATABASE_URL: {exc}") from None
        return self

    @field_validator("redis_url")
    @classmethod
    def _redis(cls, v: str | None) -> str | None:
        if v and not v.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("not a Redis URL: expected redis://host:6379/0 (or rediss://, unix://)")
        return v

    @field_validator("arbiter_embed_origins")
    @classmethod
    def _embedders(cls, v: str) -> str:
        for item in _comma_list(v):
            if item != "*" and not EMBED_ORIGIN.fullmatch(item):
                raise ValueError(f"{item!r} is not an origin (https://host[:port]) or *")
        return v

    @property
    def embed_ancestors(self) -> str:
        """The embeds' CSP ``frame-ancestors`` sources: ``*`` or the origins, space-separated."""
        items = _comma_list(self.arbiter_embed_origins)
        return "*" if not items or "*" in items else " ".join(items)

    @field_validator("arbiter_trusted_proxies")
    @classmethod
    def _proxies(cls, v: str) -> str:
        for item in _comma_list(v):
            _network(item)
        return v

    @property
    def trusted_proxies(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(_network(item) for item in _comma_list(self.arbiter_trusted_proxies))

    @property
    def cors_origins(self) -> list[str]:
        return _comma_list(self.arbiter_cors_origins)

    @property
    def secret_keys(self) -> tuple[str, ...]:
        """The keys the operator set (ARBITER_SECRET_KEY, else its former name), the first sealing."""
        return tuple(dict.fromkeys(_comma_list(self.arbiter_secret_key or self.arbiter_webhook_key or "")))

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def heartbeat_path(self) -> Path:
        import tempfile

        given = self.arbiter_worker_heartbeat_path
        return Path(given) if given else Path(tempfile.gettempdir()) / "arbiter-worker.heartbeat"


@lru_cache
def get_settings() -> Settings:
    return Settings()
