"""Promises about the routers (docs/architecture.md "Who may do what", "Where a new piece goes"):
every protected route states its permission in its signature, and no route compares a principal or
writes a query itself."""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts

from app.api import auth
from app.api.contract import TOKEN_OPTIONAL
from app.api.deps import get_principal
from app.main import create_app

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "app" / "api"


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _routes() -> list[tuple[str, APIRoute]]:
    """Every API route of the app with its full path (routers are included with their prefix)."""
    return [
        (c.path_format or "", c.original_route)
        for c in iter_route_contexts(create_app().routes)
        if isinstance(c.original_route, APIRoute)
    ]


def _requirements() -> set[Any]:
    return {auth.require(a) for a in auth.Access} | {auth.require(a, rows=True) for a in auth.Access}


def unstated(routes: list[tuple[str, APIRoute]]) -> list[str]:
    """Routes that read a token without stating which principal may call them."""
    requirements = _requirements()
    out = []
    for path, route in routes:
        calls = set(_calls(route.dependant))
        if get_principal in calls and not calls & requirements and route.operation_id not in TOKEN_OPTIONAL:
            out.append(f"{path} ({route.operation_id or route.name})")
    return out


def test_every_protected_route_states_its_permission_in_its_signature() -> None:
    routes = [(p, r) for p, r in _routes() if p.startswith("/v1/") or p == "/metrics"]
    assert len(routes) > 60
    assert unstated(routes) == []
    stated = {r.operation_id for _, r in routes if set(_calls(r.dependant)) & _requirements()}
    assert {"create_round", "report_result", "create_event", "correct_result", "drop_entry"} <= stated
    # and the check sees a route that reads a token without stating who may call it
    path, bare = next((p, r) for p, r in routes if r.operation_id == "list_entries")
    assert unstated([(path, bare)]) == [] and bare.operation_id in TOKEN_OPTIONAL
    unlisted = copy.copy(bare)  # routes are shared by every app made: change a copy only
    unlisted.operation_id = "an_unlisted_read"
    assert unstated([(path, unlisted)]) == [f"{path} (an_unlisted_read)"]
    assert bare.operation_id == "list_entries"


def offences(tree: ast.AST, path: str) -> list[str]:
    """``authorize(…)`` or ``select(…)`` called in a router module."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name in ("authorize", "select"):
                out.append(f"{path}:{node.lineno}: {name}(")
    return out


def test_no_router_authorizes_in_its_body_or_writes_a_query() -> None:
    found = []
    for path in sorted(API.rglob("*.py")):
        if path.name == "auth.py":  # the one place that feeds authorize from the request
            continue
        found += offences(ast.parse(path.read_text()), str(path.relative_to(ROOT)))
    assert found == []
    assert offences(ast.parse("authorize(p, Access.ORGANIZER)\nselect(Event)"), "x") == [
        "x:1: authorize(",
        "x:2: select(",
    ]
