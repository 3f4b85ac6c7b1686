"""The presets an event may be created from, and the settings behind each (formats.md "Presets")."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.api.csv_io import CSV_CONTENT, FormatQuery, list_answer
from app.api.paging import from_list
from app.api.schemas import PresetPage, PresetRead
from app.services.preset_catalog import list_presets

router = APIRouter(prefix="/v1/presets", tags=["events"])


@router.get("", operation_id="list_presets", response_model=PresetPage, responses=CSV_CONTENT)
async def list_presets_route(request: Request, format: FormatQuery = "json") -> Response:
    """Every preset with its settings document: `POST /v1/events {"preset": name, "settings": {…}}`
    starts from it and replaces the keys given in `settings` (`?format=csv`: one preset a line, its
    settings as JSON text)."""
    fetch = from_list(
        list_presets(), lambda p: p.name, lambda p: PresetRead(name=p.name, settings=p.settings)
    )
    return await list_answer(request, format, PresetPage, fetch, "presets.csv")
