"""The stateless tools' routes are made from the games' declarations (docs/architecture.md "Adding a
game"): one ``POST /v1/adjudicate/{game}`` per game with a tool, its body the game's own schema, its
operation ``adjudicate_{member}``, and, when its ``VerdictRoute`` names one, its permission."""

from __future__ import annotations

import ast
import dataclasses
import warnings
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter
from fastapi.routing import APIRoute, iter_route_contexts

from app.api import GAME_MODULES, ROUTERS, verdicts
from app.core.access import Access
from app.core.games import titan_arena
from app.core.games.registry import GAMES, Game
from app.main import create_app
from app.settings import Settings
from tests.support.api import ADMIN_TOKEN, api_client, assert_problem, bearer
from tests.test_routes import unstated

API = Path(__file__).resolve().parents[2] / "app" / "api"
DECLARED = [m.VERDICT_ROUTE for m in GAME_MODULES if hasattr(m, "VERDICT_ROUTE")]
TITAN_LOG: dict[str, Any] = {"players": ["Ann", "Bob", "Cy"], "scores": {"Ann": 3, "Bob": 1, "Cy": 1}}


def _tool_routes(app: Any, prefix: str = "/v1/adjudicate/") -> dict[str, APIRoute]:
    return {
        c.path_format or "": c.original_route
        for c in iter_route_contexts(app.routes)
        if isinstance(c.original_route, APIRoute) and (c.path_format or "").startswith(prefix)
    }


def test_each_game_with_a_tool_has_its_route_built_from_its_declaration() -> None:
    tools = {g.name: g for g in GAMES if g.tool is not None}
    assert set(tools) == {"titan-arena", "rite-of-command", "battlebooks-royal", "strategic-titan"}
    app = create_app()
    routes = _tool_routes(app)
    assert set(routes) == {f"/v1/adjudicate/{name}" for name in tools}
    document = app.openapi()["paths"]
    for route in DECLARED:
        made = routes[f"/v1/adjudicate/{route.game}"]
        assert made.methods == {"POST"} and made.endpoint.__module__ == "app.api.verdicts"
        assert made.operation_id == f"adjudicate_{tools[route.game].verdict_member}"
        assert made.response_model is route.verdict and made.tags == [route.tag]
        operation = document[f"/v1/adjudicate/{route.game}"]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert body == f"#/components/schemas/{route.body.__name__}"
        assert "security" not in operation  # no token: none of them names a permission
    assert unstated(list(routes.items())) == []


def test_no_router_writes_a_tool_route_itself() -> None:
    """``/v1/adjudicate/…`` is routed only by app/api/verdicts.py (its docstrings may name it)."""
    written = []
    for path in sorted(API.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(
                isinstance(a, ast.Constant) and str(a.value).startswith("/v1/adjudicate/") for a in node.args
            ):
                written.append(f"{path.name}:{node.lineno}")
    assert written == []
    assert sum(len(_tool_routes(r, "/v1/adjudicate/")) for r in ROUTERS) == len(DECLARED)


def test_a_tool_left_out_routed_twice_or_without_a_game_fails_as_the_routes_are_made() -> None:
    with pytest.raises(ImportError, match="are not the games with a tool"):
        verdicts.tool_router(DECLARED[1:])
    with pytest.raises(ImportError, match="declared twice"):
        verdicts.tool_router([*DECLARED, DECLARED[0]])
    with pytest.raises(ImportError, match="are not the games with a tool"):
        verdicts.tool_router([*DECLARED, dataclasses.replace(DECLARED[0], game="bga")])
    assert len(verdicts.tool_router(DECLARED).routes) == len(DECLARED)


def test_an_adjudicated_game_without_its_tool_does_not_declare() -> None:
    with pytest.raises(TypeError, match="come together"):
        Game("x", adjudicator=titan_arena.adjudicate_match, record_shape=titan_arena.TitanArenaLog)
    with pytest.raises(TypeError, match="come together"):
        Game("x", presets={"p": {}}, tool=lambda record: record)


async def test_a_route_naming_a_permission_states_it_and_refuses_a_caller_without_it(
    sqlite_url: str,
) -> None:
    guarded = [
        dataclasses.replace(r, access=Access.ADMIN) if r.game == "titan-arena" else r for r in DECLARED
    ]
    outer = APIRouter(prefix="/guarded")
    outer.include_router(verdicts.tool_router(guarded))
    settings = Settings(
        database_url=sqlite_url, redis_url=None, arbiter_admin_token=ADMIN_TOKEN, arbiter_sweep_seconds=3600
    )
    app = create_app(settings)
    app.include_router(outer)
    routes = _tool_routes(app, "/guarded/")
    assert unstated(list(routes.items())) == []
    with warnings.catch_warnings():  # the guarded copies repeat the tools' operation ids
        warnings.simplefilter("ignore", UserWarning)
        document = app.openapi()["paths"]
    assert document["/guarded/v1/adjudicate/titan-arena"]["post"]["security"]
    assert "security" not in document["/guarded/v1/adjudicate/rite-of-command"]["post"]
    async with app.router.lifespan_context(app), api_client(app, "sqlite") as api:
        url = "/guarded/v1/adjudicate/titan-arena"
        assert_problem(await api.client.post(url, json=TITAN_LOG), 401)
        r = await api.client.post(url, json=TITAN_LOG, headers=bearer(ADMIN_TOKEN))
        assert r.status_code == 200, r.text
        public = await api.client.post("/v1/adjudicate/titan-arena", json=TITAN_LOG)
        assert public.status_code == 200 and r.json() == public.json()
        assert r.json()["places"][0]["player"] == "Ann" and len(r.json()["tiebreaks"]) == 1
        # a bad body is still the game's own 422, naming the field
        bad = {**TITAN_LOG, "players": "Ann"}
        body = assert_problem(await api.client.post(url, json=bad, headers=bearer(ADMIN_TOKEN)), 422)
        assert body["errors"][0]["loc"] == ["body", "players"]
