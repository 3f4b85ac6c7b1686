"""The committed OpenAPI document's schemas, for checking what the tests send against the contract."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

DOCUMENT = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


@cache
def validator(pointer: str) -> Any:
    """A validator of the document's schema at ``pointer`` (``#/components/schemas/...``)."""
    schemas = json.loads(DOCUMENT.read_text("utf-8"))["components"]["schemas"]
    return jsonschema_rs.validator_for({"$ref": pointer, "components": {"schemas": schemas}})


GAME_LOG = "#/components/schemas/ResultIn/properties/game_log"


def game_log_problems(game_log: Any) -> list[str]:
    """Why the document's ``game_log`` schema refuses ``game_log`` (nothing: it accepts it)."""
    return [f"{list(e.instance_path)}: {e.message}" for e in validator(GAME_LOG).iter_errors(game_log)]
