"""The presets an event may be created from, and the settings behind each (formats.md "Presets")."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.schemas import PresetPage, PresetRead
from app.services.preset_catalog import list_presets

router = APIRouter(prefix="/v1/presets", tags=["events"])


@router.get("", operation_id="list_presets", response_model=PresetPage)
async def list_presets_route() -> PresetPage:
    """Every preset with its settings document: `POST /v1/events {"preset": name, "settings": {…}}`
    starts from it and replaces the keys given in `settings`."""
    return PresetPage(items=[PresetRead(name=p.name, settings=p.settings) for p in list_presets()])
