"""The HTTP client the API tests drive the app with, and the requests every event makes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx

ADMIN_TOKEN = "test-admin-token"


@dataclass
class Api:
    """An HTTP client on the app plus the app itself (for draining in-process jobs)."""

    client: httpx.AsyncClient
    app: Any
    backend: str

    async def drain_jobs(self) -> None:
        drain = getattr(self.app.state.dispatcher, "drain", None)
        if drain is not None:
            await drain()

    def admin(self) -> dict[str, str]:
        return bearer(ADMIN_TOKEN)


@asynccontextmanager
async def api_client(app: Any, backend: str) -> AsyncIterator[Api]:
    """An :class:`Api` on ``app`` (already started) through an in-memory ASGI transport."""
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://arbiter.test") as client:
        yield Api(client, app, backend)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def assert_problem(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


async def make_event(api: Api, **body: Any) -> tuple[dict[str, Any], str]:
    payload = {"name": "Spring Open", "game": "generic"}
    payload.update(body)
    r = await api.client.post("/v1/events", json=payload, headers=api.admin())
    assert r.status_code == 201, r.text
    data = r.json()
    return data, data["organizer_token"]


async def add_entry(api: Api, event_id: str, token: str, name: str, **body: Any) -> dict[str, Any]:
    r = await api.client.post(
        f"/v1/events/{event_id}/entries", json={"name": name, **body}, headers=bearer(token)
    )
    assert r.status_code == 201, r.text
    return r.json()
