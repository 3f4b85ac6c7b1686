"""Configuration, from the environment only (pydantic-settings).

With nothing set, the embedded default: a SQLite file and jobs run in-process.
With ``DATABASE_URL`` (postgresql+asyncpg://…) and ``REDIS_URL``, the production shape:
Postgres and arq workers on Redis.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="", case_sensitive=False, extra="ignore")

    database_url: str = Field(
        default="sqlite+aiosqlite:///./arbiter.db",
        description="SQLAlchemy async URL: sqlite+aiosqlite:///file.db or postgresql+asyncpg://…",
    )
    redis_url: str | None = Field(
        default=None, description="redis://host:port/db; unset runs jobs in-process"
    )
    arbiter_admin_token: str | None = Field(default=None, description="bearer token of the admin")
    arbiter_cors_origins: str = Field(default="", description="comma-separated allowed origins")
    arbiter_queue_name: str = Field(default="arbiter:queue", description="arq queue name")
    arbiter_job_stale_queued: int = Field(
        default=60, description="seconds a queued job may wait before the sweep enqueues it again"
    )
    arbiter_sweep_seconds: int = Field(default=30, description="interval of the stuck-job sweep")

    @property
    def cors_origins(self) -> list[str]:
        return [o.strip() for o in self.arbiter_cors_origins.split(",") if o.strip()]

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    return Settings()
