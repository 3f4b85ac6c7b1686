"""The OpenAPI document's promises (api.md "The OpenAPI document"), read from the document itself,
and the settings and game log schemas agreeing with the validators they are generated from."""

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
from app.core.games import rite_of_command as roc
from app.core.games.registry import ADJUDICATORS, RECORD_SHAPES
from app.core.presets import PRESETS
from app.core.standings import settings_problems
from app.core.tiebreaks import CRITERIA
from app.core.vocabulary import StageFormatName
from tests.api.test_adjudicated_results import RINGS
from tests.api.test_titan_arena import SEED_LOG
from tests.core.test_battlebooks_royal import play_out
from tests.support.strategic_titan import P4, four_player_game

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
        if 403 in codes:  # a route that resolves a token, and the roles its permission admits
            bearers = [req["bearer"] for req in op["security"] if "bearer" in req]
            assert len(bearers) == 1, op["operationId"]
            roles = bearers[0]
            assert set(roles) <= {"admin", "organizer", "scorekeeper", "judge", "entry", "season", "monitor"}
            assert roles or {} in op["security"], op["operationId"]  # none only where a token is optional
    roles = {
        i: next(r["bearer"] for r in by_id[i]["security"] if "bearer" in r)
        for i in by_id
        if "security" in by_id[i]
    }
    assert roles["create_event"] == ["admin"] and roles["create_round"] == ["admin", "organizer"]
    assert roles["swap_entries"] == ["admin", "organizer", "judge"]
    assert roles["correct_result"] == ["admin", "organizer", "scorekeeper", "judge"]
    assert roles["report_result"] == ["admin", "organizer", "scorekeeper", "judge", "entry"]
    assert roles["drop_entry"] == ["admin", "organizer", "judge", "entry"] and roles["list_entries"] == []
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


# --- game logs: each adjudicated game's record shape, the one its parser reads -------------------
def _game_schema(game: str) -> Any:
    name = RECORD_SHAPES[game].__name__
    return jsonschema_rs.validator_for(
        {"$ref": f"#/components/schemas/{name}", "components": {"schemas": SCHEMAS}}
    )


GAME_LOG = jsonschema_rs.validator_for(
    {"$ref": "#/components/schemas/ResultIn/properties/game_log", "components": {"schemas": SCHEMAS}}
)


def _rite_record(deck_size: int, seed: str) -> dict[str, Any]:
    dealt = roc.deal(roc.sample_catalog(), deck_size, seed)
    plays, turn = [], dealt.first_player
    for i in range(2 * deck_size):
        plays.append({"player": turn, "ring": i % 3 + 1})
        turn = 3 - turn
    return {"deal": dealt.as_dict(), "first_player": dealt.first_player, "plays": plays}


# (game, seats, log): the logs the test suite's flows report (tests/api, tests/support)
SENT: list[tuple[str, int, dict[str, Any]]] = [
    ("rite-of-command", 2, RINGS),
    ("rite-of-command", 2, {**RINGS, "catalog": roc.sample_catalog_data()}),
    ("rite-of-command", 2, _rite_record(6, "contract")),
    ("rite-of-command", 2, {**_rite_record(4, "again"), "deal": {"deck_size": 4, "seed": "again"}}),
    ("titan-arena", 4, SEED_LOG),
    ("titan-arena", 4, {**SEED_LOG, "tie_rule": "last_play", "last_play": "Hatshepsut", "variant": None}),
    ("titan-arena", 4, {**SEED_LOG, "scores": [12, 4, 9, 9], "seed": "s"}),
    ("strategic-titan", 4, {"players": P4, "events": four_player_game()}),
    ("strategic-titan", 4, {"players": P4, "events": four_player_game(), "options": {"legion_markers": 6}}),
    ("battlebooks-royal", 5, play_out(5, 3, [0, 1, 2, 4])),
    ("battlebooks-royal", 4, {k: v for k, v in play_out(4, 0, [3, 2, 1]).items() if k != "first"}),
]


def test_every_adjudicated_game_has_its_log_in_the_document() -> None:
    assert set(RECORD_SHAPES) == set(ADJUDICATORS)
    variants = SCHEMAS["ResultIn"]["properties"]["game_log"]["anyOf"]
    assert {v.get("$ref") for v in variants} == {
        *(f"#/components/schemas/{shape.__name__}" for shape in RECORD_SHAPES.values()),
        None,
    }
    assert SCHEMAS["TitanArenaLog"]["additionalProperties"] is False  # the parser refuses other keys


@pytest.mark.parametrize(("game", "seats", "log"), SENT, ids=[f"{g}-{i}" for i, (g, _, _) in enumerate(SENT)])
def test_the_logs_the_flows_send_are_in_the_document(game: str, seats: int, log: dict[str, Any]) -> None:
    ADJUDICATORS[game](log, seats, "contract")  # the server accepts it
    schema = _game_schema(game)
    assert schema.is_valid(log), [e.message for e in schema.iter_errors(log)]
    assert GAME_LOG.is_valid(log) and GAME_LOG.is_valid(None)


@pytest.mark.parametrize(
    ("game", "seats", "log"),
    [
        ("titan-arena", 4, {**SEED_LOG, "winner": "Anne"}),
        ("titan-arena", 4, {**SEED_LOG, "players": "Anne"}),
        ("titan-arena", 4, {**SEED_LOG, "bets": [{"player": "Anne", "creature": "Wyrm", "points": -1}]}),
        ("titan-arena", 4, {**SEED_LOG, "deaths": [{"creature": "Wyrm", "by": "Anne"}]}),
        ("titan-arena", 4, {**SEED_LOG, "tie_rule": "coin"}),
        ("rite-of-command", 2, {**RINGS, "board": []}),
        ("rite-of-command", 2, {"rings": [[{"card": "Club", "owner": 3}], [], []]}),
        ("rite-of-command", 2, {**RINGS, "wagers": {"1": -5, "2": 5}}),
        ("rite-of-command", 2, {**RINGS, "wagers": {"1": 5, "2": 5, "3": 5}}),
        ("rite-of-command", 2, {**RINGS, "catalog": {"soldiers": [], "weapons": [], "deck": 3}}),
        ("strategic-titan", 4, {"players": P4, "events": [{"type": "fly", "player": "Ann"}]}),
        (
            "strategic-titan",
            4,
            {"players": P4, "events": [{"type": "start", "towers": [100, 200, 300, 400], "x": 1}]},
        ),
        (
            "strategic-titan",
            4,
            {"players": P4, "events": [{"type": "start", "towers": [100, 200, 300, 700]}]},
        ),
        ("strategic-titan", 4, {"players": ["Ann"], "events": four_player_game()}),
        ("battlebooks-royal", 4, {"body_points": [20, 20, 20, 20], "turns": []}),
        ("battlebooks-royal", 4, {"body_points": [20, 20, 20, 20], "turns": [{"attacker": 0}]}),
        ("battlebooks-royal", 4, {**play_out(4, 0, [3, 2, 1]), "body_points": [0, 20, 20, 20]}),
        ("battlebooks-royal", 4, {**play_out(4, 0, [3, 2, 1]), "winner": 0}),
    ],
)
def test_a_malformed_log_is_refused_by_the_document_and_the_server(
    game: str, seats: int, log: dict[str, Any]
) -> None:
    with pytest.raises(InvalidInput):
        ADJUDICATORS[game](log, seats, "contract")
    assert not _game_schema(game).is_valid(log)
    assert not GAME_LOG.is_valid(log)
