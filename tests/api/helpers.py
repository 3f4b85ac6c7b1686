from __future__ import annotations

from typing import Any

from tests.conftest import Api


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


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


def assert_problem(r: Any, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body
