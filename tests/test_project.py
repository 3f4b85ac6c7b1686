"""Promises about the project itself: a pure core, a committed OpenAPI document, migrations that
match the models."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from app.cli import openapi_document
from app.db.base import Base
from app.db.session import make_engine
from tests.support.services import in_thread

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = {"fastapi", "sqlalchemy", "pydantic", "pydantic_settings", "redis", "arq", "starlette", "asyncpg"}


def test_core_imports_no_framework() -> None:
    offenders = []
    for path in (ROOT / "app" / "core").rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_core_purity_check_can_fail(tmp_path: Path) -> None:
    tree = ast.parse("from sqlalchemy import select\nimport fastapi.routing\n")
    found = [
        n.module if isinstance(n, ast.ImportFrom) else n.names[0].name
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    assert [f.split(".")[0] for f in found] == ["sqlalchemy", "fastapi"]


def test_openapi_document_is_current() -> None:
    committed = (ROOT / "openapi" / "openapi.json").read_text()
    assert committed == openapi_document(), "openapi/openapi.json is stale: run `make openapi`"


def test_every_route_has_a_stable_operation_id() -> None:
    import json

    spec = json.loads(openapi_document())
    ids = [op["operationId"] for path in spec["paths"].values() for op in path.values()]
    assert len(ids) == len(set(ids))
    assert all("_v1_" not in i for i in ids), ids  # not FastAPI's generated names


async def _diff(url: str) -> list[Any]:
    engine = make_engine(url)
    try:
        async with engine.connect() as conn:
            return await conn.run_sync(
                lambda sync: compare_metadata(
                    MigrationContext.configure(sync, opts={"compare_type": True}), Base.metadata
                )
            )
    finally:
        await engine.dispose()


@pytest.mark.parametrize("backend", ["pg_url", "sqlite_url"])
def test_migrations_match_models(backend: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue(backend)
    diff = in_thread(asyncio.run, _diff(url))
    assert diff == []


def test_no_tracked_file_holds_a_merge_conflict() -> None:
    """A merge left half-done (its ``<<<<<<<`` … ``>>>>>>>`` markers committed) is caught here."""
    import re
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    marker = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)
    found = []
    for name in tracked:
        path = ROOT / name
        if path.suffix in {".png", ".pdf", ".ico", ".woff2"} or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        if marker.search(text):
            found.append(name)
    assert not found, found
