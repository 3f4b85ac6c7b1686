"""The event settings document as JSON Schema, generated from the rules that validate it.

Each key's ``Rule`` (``app/core/event_settings.py``) carries its check and its schema together; the
scoring schemes, the ranking bases and the tie-break criteria come from their own registries
(``app/core/scoring.py``, ``app/core/standings.py``, ``app/core/tiebreaks.py``). So the contract
(the OpenAPI document's ``EventSettings``) cannot drift from what the server accepts.

The shapes: ``stages`` is a list of stages, one variant per format, told apart by ``format``;
``scoring`` one variant per scheme, told apart by ``scheme`` (the server defaults an absent
``scheme`` to ``wdl``; the document asks for it, so a typed client always names it); ``tiebreaks``
a list of criterion names. ``ref`` is how the caller names one schema of :func:`definitions`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.core import event_settings as es
from app.core.scoring import SCHEMES, SCORING_KEYS
from app.core.standings import BASES
from app.core.tiebreaks import CRITERIA
from app.core.vocabulary import StageFormatName

Ref = Callable[[str], dict[str, Any]]


def _props(keys: Mapping[str, es.Rule]) -> dict[str, Any]:
    return {k: dict(rule.schema) for k, rule in keys.items()}


def _stage_name(fmt: StageFormatName) -> str:
    return "Stage_" + "".join(part.title() for part in fmt.value.split("_"))


def _scoring_name(scheme: str) -> str:
    return "Scoring_" + "".join(part.title() for part in scheme.split("_"))


def definitions(ref: Ref) -> dict[str, dict[str, Any]]:
    """Every schema of the settings document by name; ``EventSettings`` is the document."""
    out: dict[str, dict[str, Any]] = {}
    out["TiebreakCriterion"] = {
        "type": "string",
        "enum": sorted(CRITERIA),
        "description": 'a tie-break criterion (formats.md "Tie-break criteria")',
    }
    out["TiebreakChain"] = {"type": "array", "uniqueItems": True, "items": ref("TiebreakCriterion")}
    number = {"type": "number"}
    for scheme in SCHEMES:
        props: dict[str, Any] = {k: number for k in SCORING_KEYS if k not in ("scheme", "points")}
        props["points"] = {"type": "array", "minItems": 1, "items": number}
        props["scheme"] = {"type": "string", "enum": [scheme]}
        out[_scoring_name(scheme)] = {
            "type": "object",
            "additionalProperties": False,
            "required": ["scheme"],
            "properties": dict(sorted(props.items())),
        }
    out["Scoring"] = {
        "oneOf": [ref(_scoring_name(s)) for s in SCHEMES],
        "discriminator": {
            "propertyName": "scheme",
            "mapping": {s: ref(_scoring_name(s))["$ref"] for s in SCHEMES},
        },
    }
    out["AdvanceRule"] = {
        "type": "object",
        "additionalProperties": False,
        "properties": _props(es.ADVANCE_KEYS),
    }
    out["RatingSettings"] = {
        "type": "object",
        "additionalProperties": False,
        "properties": _props(es.RATING_KEYS),
    }
    for fmt in StageFormatName:
        props = _props(es.STAGE_KEYS)
        props["format"] = {"type": "string", "enum": [fmt.value]}
        props["advance"] = ref("AdvanceRule")
        props["scoring"] = ref("Scoring")
        props["tiebreaks"] = ref("TiebreakChain")
        props["ranking_basis"] = {"type": "string", "enum": list(BASES)}
        out[_stage_name(fmt)] = {
            "type": "object",
            "additionalProperties": False,
            "required": ["format"],
            "properties": dict(sorted(props.items())),
        }
    out["Stage"] = {
        "oneOf": [ref(_stage_name(f)) for f in StageFormatName],
        "discriminator": {
            "propertyName": "format",
            "mapping": {f.value: ref(_stage_name(f))["$ref"] for f in StageFormatName},
        },
    }
    props = _props(es.TOP_KEYS)
    props["stages"] = {"type": "array", "minItems": 1, "items": ref("Stage")}
    props["rating"] = ref("RatingSettings")
    props["scoring"] = ref("Scoring")
    props["tiebreaks"] = ref("TiebreakChain")
    out["EventSettings"] = {
        "type": "object",
        "additionalProperties": False,
        "description": 'the settings document (api.md "Event settings"): each key given overrides the '
        "preset's",
        "properties": dict(sorted(props.items())),
    }
    return out
