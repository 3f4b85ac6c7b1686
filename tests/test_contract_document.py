"""The OpenAPI document's promises (api.md "The OpenAPI document"), read from the document itself,
and the settings schema agreeing with the validator it is generated from."""

from __future__ import annotations

import json
from typing import Any

import jsonschema_rs
import pytest

from app.api.caching import ETAGGED
from app.api.idempotency import IDEMPOTENT
from app.cli import openapi_document
from app.core.errors import InvalidInput
from app.core.event_settings import STAGE_KEYS, GameLimits, validate
from app.core.presets import PRESETS
from app.core.standings import settings_problems
from app.core.tiebreaks import CRITERIA
from app.core.vocabulary import StageFormatName

SPEC = json.loads(openapi_document())
OPERATIONS = [(path, method, op) for path, ops in SPEC["paths"].items() for method, op in ops.items()]
PROBLEM_REF = {"$ref": "#/components/schemas/Problem"}


def test_every_failure_is_one_problem_schema() -> None:
    text = json.dumps(SPEC)
    assert "HTTPValidationError" not in text and '"ValidationError"' not in text
    assert set(SPEC["components"]["schemas"]["Problem"]["required"]) == {"type", "title", "status", "detail"}
    for path, method, op in OPERATIONS:
        codes = {int(c) for c in op["responses"]}
        assert {413, 503} <= codes, (path, method)
        if path.startswith(("/v1/schedules/round-robin", "/v1/adjudicate/")):
            assert 429 in codes, path
        for code, resp in op["responses"].items():
            if code[0] in "45":
                assert resp["content"] == {"application/problem+json": {"schema": PROBLEM_REF}}, (path, code)


def test_security_and_headers_are_declared() -> None:
    assert SPEC["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": SPEC["components"]["securitySchemes"]["bearer"]["description"],
    }
    by_id = {op["operationId"]: op for _, _, op in OPERATIONS}
    for _, _, op in OPERATIONS:
        names = {p["name"] for p in op.get("parameters", [])}
        assert "authorization" not in names
        codes = {int(c) for c in op["responses"]}
        assert 401 in codes, op["operationId"]  # a malformed Authorization, on public routes too
        if 403 in codes:  # a route that resolves a token
            assert {"bearer": []} in op["security"], op["operationId"]
    for op_id in IDEMPOTENT:
        op = by_id[op_id]
        assert "Idempotency-Key" in {p["name"] for p in op["parameters"]}
        ok = next(r for c, r in op["responses"].items() if c.startswith("2"))
        assert "Idempotent-Replayed" in ok["headers"]
    for op_id in ETAGGED:
        op = by_id[op_id]
        assert "If-None-Match" in {p["name"] for p in op["parameters"]}
        assert {"ETag", "Cache-Control"} <= set(op["responses"]["200"]["headers"]) and "304" in op[
            "responses"
        ]
    assert "If-Match" in {p["name"] for p in by_id["correct_result"]["parameters"]}
    assert (
        "428" in by_id["correct_result"]["responses"] and "428" not in by_id["append_match_log"]["responses"]
    )
    assert "Location" in by_id["create_event"]["responses"]["201"]["headers"]
    # a job is read by anyone holding its id (an anonymous schedule's too); a token shows more
    assert by_id["get_job"]["security"] == [{}, {"bearer": []}]


SCHEMAS = SPEC["components"]["schemas"]
SETTINGS = jsonschema_rs.validator_for(
    {"$ref": "#/components/schemas/EventSettings", "components": {"schemas": SCHEMAS}}, validate_formats=True
)
GAME = GameLimits("generic", 2, 8)


def _server_accepts(doc: dict[str, Any]) -> bool:
    try:
        validate(doc, GAME, lambda s: settings_problems(s, ("settings",), ("scoring", "tiebreaks")))
    except InvalidInput:
        return False
    return True


def test_the_settings_schema_is_the_validators() -> None:
    assert EVENT_SETTINGS_REF in json.dumps(SCHEMAS["EventCreate"]["properties"]["settings"])
    assert SCHEMAS["TiebreakCriterion"]["enum"] == sorted(CRITERIA)
    assert set(SCHEMAS["Stage"]["discriminator"]["mapping"]) == set(StageFormatName)
    assert set(SCHEMAS["Scoring"]["discriminator"]["mapping"]) == {"wdl", "placement", "game_score"}
    for fmt in StageFormatName:
        variant = SCHEMAS["Stage_" + "".join(p.title() for p in fmt.value.split("_"))]
        assert set(STAGE_KEYS) - {"format"} < set(variant["properties"])
    for name, doc in PRESETS.items():
        assert SETTINGS.is_valid(doc), (name, [e.message for e in SETTINGS.iter_errors(doc)])


EVENT_SETTINGS_REF = "#/components/schemas/EventSettings"


@pytest.mark.parametrize(
    "doc",
    [
        {"stages": [{"format": "knockout"}]},
        {"stages": [{"format": "swiss", "rounds": 0}]},
        {"stages": [{"format": "swiss", "rounds": "3"}]},
        {"stages": [{"format": "series", "best_of": 4}]},
        {"stages": [{"format": "swiss", "pairing": "dutch"}]},
        {"stages": [{"format": "swiss"}], "capcity": 3},
        {"stages": [{"format": "swiss"}], "tiebreaks": ["buchholz", "coin"]},
        {"stages": [{"format": "swiss"}], "scoring": {"scheme": "elo"}},
        {"stages": [{"format": "swiss"}], "scoring": {"scheme": "wdl", "win": "3"}},
        {"stages": [{"format": "swiss", "advance": {"top": 0}}]},
        {"stages": [{"format": "swiss"}], "join_deadline": "tomorrow"},
        {"stages": [{"format": "swiss"}], "catalog": ["One"]},
        {"stages": []},
    ],
)
def test_what_the_server_refuses_the_schema_refuses(doc: dict[str, Any]) -> None:
    assert not _server_accepts(doc)
    assert not SETTINGS.is_valid(doc)


@pytest.mark.parametrize(
    "doc",
    [
        {"stages": [{"format": "swiss", "rounds": 5, "bye": "lowest_score"}], "tiebreaks": ["buchholz"]},
        {
            "stages": [{"format": "series", "best_of": 5}],
            "scoring": {"scheme": "placement", "points": [3, 1]},
        },
        {
            "stages": [
                {"format": "round_robin", "groups": 2, "advance": {"top": 2}},
                {"format": "single_elimination", "scoring": {"scheme": "wdl"}, "tiebreaks": []},
            ],
            "rating": {"pool": "league", "k": 24},
            "join_deadline": "2026-05-01T18:00:00+02:00",
            "table_settings": {"speed": ["fast", "normal"]},
        },
    ],
)
def test_what_the_schema_describes_the_server_takes(doc: dict[str, Any]) -> None:
    assert SETTINGS.is_valid(doc), [e.message for e in SETTINGS.iter_errors(doc)]
    assert _server_accepts(doc)
