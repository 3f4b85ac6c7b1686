"""The OpenAPI document as the server answers (api.md "The OpenAPI document").

FastAPI's generated document knows the routes' parameters and success bodies; this module adds what
it cannot see, read from the routes themselves: every failure status an operation can answer, all
with the one ``Problem`` schema as ``application/problem+json`` (FastAPI's ``HTTPValidationError``
is gone); the bearer scheme and ``security`` on every operation that reads a token; the headers
accepted (``Idempotency-Key``, ``If-Match``, ``If-None-Match``) and answered (``ETag``,
``Location``, ``Retry-After``, ``Idempotent-Replayed``, ``WWW-Authenticate``).

Rulings (each one a fact about a route, never a per-operation list kept by hand):
- every operation may answer 401 (a malformed ``Authorization``, public routes too), 413 (a body
  over the limit) and 503 (the database unreachable, or the process at its most streams), with
  ``Retry-After`` on 503;
- an operation that takes any parameter or body may answer 422; one with a path parameter 404; one
  that resolves a token 401 and 403; one that changes something, or reads a resource whose state may
  not allow the read (a preset's own view of another kind of event), 409;
- an operation with ``If-Match`` may answer 412, and 428 when it requires the header
  (``IF_MATCH_REQUIRED``);
- the operations that are rate limited (``RATE_LIMITED``, and every stream), and every one that
  resolves a token (a client past its allowance of unknown tokens), may answer 429 with
  ``Retry-After``; an operation that reads a body may answer 400 when it cannot be parsed and 408
  when it does not arrive in time;
- a GET that answers an ``ETag`` built from its body (``app/api/caching.py``) answers 304 to an
  ``If-None-Match`` naming it;
- an optional body is its schema, not "the schema or null": a client sends it or sends nothing (a
  generator that reads the null as a value to send would send one even when told to send nothing).

A schema's rule across its fields (exactly one of ``name`` or ``player_id``; which preset goes with
which game), a ``oneOf`` or ``anyOf`` beside its ``properties``, is written inside ``allOf``: the same
constraint, which a generator that reads a union beside properties as the union alone
(openapi-python-client) keeps apart from the one model of the fields.

A route that reads its body itself (registration: one entry or a list) names its schemas as
components (``BODY_COMPONENTS``), so that clients share one ``EntryCreate`` type.

The bodies' open parts are typed from the definitions the server checks them with: the event
settings (``app/core/settings_schema.py``), a job's result (its function's return type), a round's
pairing explanation, and a result's ``game_log`` (each adjudicated game's record shape).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, get_type_hints

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import TypeAdapter

from app.api.caching import CSV_LISTS, ETAGGED
from app.api.deps import get_principal
from app.api.guard import HEAVY_PREFIXES
from app.api.idempotency import IDEMPOTENT, MAX_KEY_LENGTH
from app.api.problems import PROBLEM
from app.api.schemas import EntryCreate
from app.core import settings_schema
from app.core.games.registry import RECORD_SHAPES
from app.jobs import JobKind
from app.services.formats.explanations import EXPLANATIONS

# Operations that refuse a change without If-Match (428), beside the ones where it is optional.
IF_MATCH_REQUIRED = frozenset({"update_event", "correct_result"})
# Reads that answer without a token and show more to its holder (a sealed pack to the organizer,
# a failed job's traceback to the admin).
TOKEN_OPTIONAL = frozenset({"list_entries", "get_entry", "get_job"})
# Path prefixes whose operations a client's rate limit covers (429); every stream is limited too.
RATE_LIMITED = HEAVY_PREFIXES

# The models whose schemas a route's own request body names (``openapi_extra``) as components.
BODY_COMPONENTS: tuple[type, ...] = (EntryCreate,)

PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": 'RFC 9457 problem details: every failure answers this shape (api.md "Errors").',
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "description": "`/problems/<Kind>`, or `about:blank`"},
        "title": {"type": "string"},
        "status": {"type": "integer", "minimum": 100, "maximum": 599},
        "detail": {"type": "string"},
        "errors": {
            "type": "array",
            "description": "bad input: every problem found, each with its location",
            "items": {
                "type": "object",
                "required": ["loc", "msg"],
                "properties": {
                    "loc": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                    "msg": {"type": "string"},
                },
            },
        },
        "rule": {
            "type": "string",
            "description": "the game or format rule broken (`4.2`, `battlebooks.hero.game2`)",
        },
    },
}

WHEN: dict[int, str] = {
    400: "Bad request: the body cannot be parsed (not JSON, or not in its declared encoding)",
    401: "A token is needed and none, or an unknown one, was sent; or the Authorization header is malformed",
    403: "The token does not reach this resource",
    404: "Not found",
    409: "Conflict with the current state (or an Idempotency-Key reused with another body)",
    412: "If-Match names a stale version",
    408: "The request body did not arrive in time",
    413: "The request body is too large",
    422: "Bad input (`errors`) or a broken rule (`rule`)",
    428: "If-Match is required",
    429: "Too many requests: try again after Retry-After",
    503: "Unavailable: the database is unreachable or the server is at capacity; try again later",
}

HEADERS: dict[str, dict[str, Any]] = {
    "ETag": {"description": "the representation's tag: send it back as If-None-Match (reads) or If-Match"},
    "Location": {"description": "where the created resource (or the job) is read"},
    "Retry-After": {"description": "seconds to wait before trying again", "schema": {"type": "integer"}},
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer to an earlier request with the same key",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "WWW-Authenticate": {"description": "`Bearer`"},
    "Cache-Control": {"description": 'how long a cache may keep the answer (api.md "Caching")'},
    "Link": {"description": 'a CSV with more rows to come: `<…&cursor=…>; rel="next"` (api.md "CSV")'},
}


def _header(name: str) -> dict[str, Any]:
    return {"schema": {"type": "string"}, **HEADERS[name]}


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _roles(dependant: Dependant) -> list[str]:
    """The roles the route's stated permission admits (``app/api/auth.py``: each requirement carries
    its ``Access``); none for a read whose token is optional."""
    rules = [access for call in _calls(dependant) if (access := getattr(call, "access", None)) is not None]
    return sorted({role for rule in rules for role in rule.roles}, key=ROLE_ORDER.index)


# the order the document lists roles in
ROLE_ORDER = ("admin", "organizer", "scorekeeper", "judge", "entry", "season", "monitor")


def _request_header(name: str, description: str, **bounds: Any) -> dict[str, Any]:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "schema": {"type": "string", **bounds},
        "description": description,
    }


def _problem_response(status: int, declared: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "description": (declared or {}).get("description") or WHEN[status],
        "content": {PROBLEM: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }
    if status in (429, 503):
        out["headers"] = {"Retry-After": _header("Retry-After")}
    elif status == 401:
        out["headers"] = {"WWW-Authenticate": _header("WWW-Authenticate")}
    return out


def _statuses(route: APIRoute, path: str, method: str, op: dict[str, Any], protected: bool) -> set[int]:
    params = op.get("parameters", [])
    out = {401, 413, 503}  # a malformed Authorization is a 401 on every route, public ones too
    if params or "requestBody" in op:
        out.add(422)
    if any(p["in"] == "path" for p in params):
        out.add(404)
    if "requestBody" in op:
        out |= {400, 408}
    if protected:
        out |= {401, 403, 429}
    if method != "get" or 404 in out:
        out.add(409)
    if any(p["in"] == "header" and p["name"].lower() == "if-match" for p in params):
        out.add(412)
        if route.operation_id in IF_MATCH_REQUIRED:
            out.add(428)
    if path.startswith(RATE_LIMITED) or path.endswith("/stream"):
        out.add(429)
    # and what the route itself declares (a read that only answers for one preset's events: 409)
    out |= {int(code) for code in route.responses if str(code)[0] in "45"}
    return out


def _operation(route: APIRoute, path: str, method: str, op: dict[str, Any]) -> None:
    protected = get_principal in set(_calls(route.dependant))
    params = [p for p in op.get("parameters", []) if p["name"].lower() != "authorization"]
    for p in params:
        if p["in"] == "header" and p["name"].lower() == "if-match":
            p["name"] = "If-Match"
            p["description"] = "the resource's current version (its ETag)"
            if route.operation_id in IF_MATCH_REQUIRED:  # without it a 428: the header is required
                p["required"] = True
                p["schema"] = {"type": "string", "title": "If-Match"}
    if route.operation_id in IDEMPOTENT:
        params.append(
            _request_header(
                "Idempotency-Key",
                "at most 200 printable ASCII characters; a retry with it replays the first answer",
                maxLength=MAX_KEY_LENGTH,
                pattern="^[ -~]*$",
            )
        )
    if route.operation_id in ETAGGED:
        params.append(_request_header("If-None-Match", "an ETag read before: 304 when it is still current"))
    if params:
        op["parameters"] = params
    else:
        op.pop("parameters", None)
    body = op.get("requestBody")
    if body is not None and not body.get("required"):
        for media in body.get("content", {}).values():
            variants = media.get("schema", {}).get("anyOf", [])
            if len(variants) == 2 and {"type": "null"} in variants:
                media["schema"] = next(v for v in variants if v != {"type": "null"})
    if protected:
        # a token is optional where a read shows more to its holder, required everywhere else; the
        # requirement's roles are the kinds of token its rule admits (OpenAPI 3.1: an http scheme's
        # requirement may list roles)
        optional = route.operation_id in TOKEN_OPTIONAL
        roles = _roles(route.dependant)
        op["security"] = [{}, {"bearer": roles}] if optional else [{"bearer": roles}]
    responses: dict[str, Any] = op.setdefault("responses", {})
    for code, resp in responses.items():
        if code.startswith("2"):
            headers = resp.setdefault("headers", {})
            if code in ("201", "202"):
                headers["Location"] = _header("Location")
            if route.operation_id in IDEMPOTENT:
                headers["Idempotent-Replayed"] = _header("Idempotent-Replayed")
            if route.operation_id in ETAGGED or code == "201" and route.operation_id in IDEMPOTENT:
                headers["ETag"] = _header("ETag")
            if route.operation_id in ETAGGED:
                headers["Cache-Control"] = _header("Cache-Control")
            if route.operation_id in CSV_LISTS and code == "200":
                headers["Link"] = _header("Link")
            if not headers:
                resp.pop("headers")
    for status in sorted(_statuses(route, path, method, op, protected)):
        responses[str(status)] = _problem_response(status, responses.get(str(status)))
    if route.operation_id in ETAGGED:
        responses["304"] = {
            "description": "Not modified: the If-None-Match tag is current",
            "headers": {"ETag": _header("ETag"), "Cache-Control": _header("Cache-Control")},
        }
    op["responses"] = dict(sorted(responses.items()))


def _component(hint: Any, schemas: dict[str, Any]) -> str:
    """The schema of a Python type (a TypedDict) as a component of the document; its name."""
    schema = TypeAdapter(hint).json_schema(ref_template="#/components/schemas/{model}")
    name: str = schema["title"]
    for key, value in [*schema.pop("$defs", {}).items(), (name, schema)]:
        if schemas.setdefault(key, value) != value:  # two shapes under one name: rename one
            raise ValueError(f"the document already has another schema named {key!r}")
    return name


def _pairing(schemas: dict[str, Any]) -> dict[str, Any]:
    """``RoundRead.pairing``: the explanation a format writes, one schema per shape."""
    names = [_component(t, schemas) for t in EXPLANATIONS]
    return {
        "anyOf": [*({"$ref": f"#/components/schemas/{n}"} for n in names), {"type": "null"}],
        "description": schemas["RoundRead"]["properties"]["pairing"].get("description", ""),
    }


def _job_results(kinds: Mapping[str, JobKind], schemas: dict[str, Any]) -> dict[str, Any]:
    """``JobRead.result``: one schema per job kind, each made from its function's return type."""
    by_kind: dict[str, str] = {}
    for kind, spec in sorted(kinds.items()):
        by_kind[str(kind)] = _component(get_type_hints(spec.fn)["return"], schemas)
    names = sorted(set(by_kind.values()))
    return {
        "anyOf": [*({"$ref": f"#/components/schemas/{n}"} for n in names), {"type": "null"}],
        "description": "the job's answer once done, by its kind: "
        + "; ".join(f"`{k}` → `{n}`" for k, n in by_kind.items()),
    }


def _game_log(schemas: dict[str, Any]) -> dict[str, Any]:
    """``ResultIn.game_log``: the record of the event's game, one schema per adjudicated game, each
    generated from the shape its parser reads (``RECORD_SHAPES``); no field tells the games apart
    (the event's game does), so a plain ``anyOf``. The body's own bound (``maxProperties``) stays."""
    declared = schemas["ResultIn"]["properties"]["game_log"]
    bounds = {
        k: v for variant in declared.get("anyOf", []) for k, v in variant.items() if k == "maxProperties"
    }
    by_game = {name: _component(shape, schemas) for name, shape in sorted(RECORD_SHAPES.items())}
    return {
        "anyOf": [*({"$ref": f"#/components/schemas/{n}"} for n in by_game.values()), {"type": "null"}],
        **bounds,
        "title": declared.get("title", "Game Log"),
        "description": "the game's record, for a game Arbiter adjudicates (the event's game decides "
        "which): " + "; ".join(f"`{g}` → `{n}`" for g, n in by_game.items()),
    }


def _strategic_titan_event(schemas: dict[str, Any]) -> dict[str, Any]:
    """``StrategicTitanEvent`` (the tool's events, an appended event): one of the record's event
    shapes, the same the game log's are (``StrategicTitanLog``), since the same vocabulary checks
    them; its description and examples stay."""
    declared = schemas["StrategicTitanEvent"]
    shapes = schemas["StrategicTitanLog"]["properties"]["events"]["items"]
    return {
        **shapes,
        "title": declared.get("title", "StrategicTitanEvent"),
        "description": declared["properties"]["type"].get("description", ""),
        "examples": declared.get("examples", []),
    }


def _rules_apart(schemas: dict[str, Any]) -> None:
    """Each object schema's union beside its properties moves into its ``allOf`` (see above)."""
    for schema in schemas.values():
        if "properties" in schema:
            for key in ("oneOf", "anyOf"):
                if key in schema:
                    schema.setdefault("allOf", []).append({key: schema.pop(key)})


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            yield ref.rsplit("/", 1)[1]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _request_schemas(spec: dict[str, Any], schemas: dict[str, Any]) -> set[str]:
    """The component schemas a request body may contain (followed through every reference)."""
    todo = [n for ops in spec["paths"].values() for op in ops.values() for n in _refs(op.get("requestBody"))]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen and name in schemas:
            seen.add(name)
            todo += list(_refs(schemas[name]))
    return seen


def _defaults_described(schemas: dict[str, Any], names: set[str]) -> None:
    """A request field with a default is optional, and says so: its default moves into its
    description, so that a generator that reads ``default`` as "always present" (openapi-typescript's
    default options) does not make a client send it (api.md "The OpenAPI document")."""
    for name in sorted(names):
        schema = schemas[name]
        required = set(schema.get("required", ()))
        for prop, field in schema.get("properties", {}).items():
            if "default" in field and prop not in required:
                value = json.dumps(field.pop("default"))
                described = field.get("description", "")
                field["description"] = f"{described} (default {value})" if described else f"default {value}"


def document(app: FastAPI) -> dict[str, Any]:
    spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        for method in route.methods or ():
            op = spec["paths"].get(context.path_format or "", {}).get(method.lower())
            if op is not None:
                _operation(route, context.path_format or "", method.lower(), op)
    components = spec.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    schemas.pop("HTTPValidationError", None)
    schemas.pop("ValidationError", None)
    schemas["Problem"] = PROBLEM_SCHEMA
    for model in BODY_COMPONENTS:
        _component(model, schemas)
    schemas.update(settings_schema.definitions(lambda name: {"$ref": f"#/components/schemas/{name}"}))
    schemas["JobRead"]["properties"]["result"] = _job_results(app.state.registry.job_kinds, schemas)
    schemas["RoundRead"]["properties"]["pairing"] = _pairing(schemas)
    schemas["ResultIn"]["properties"]["game_log"] = _game_log(schemas)
    schemas["StrategicTitanEvent"] = _strategic_titan_event(schemas)
    _defaults_described(schemas, _request_schemas(spec, schemas))
    _rules_apart(schemas)
    components["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "the admin token, an event's organizer token, a staff member's token (a "
            "scorekeeper or a judge), an entry token, or the metrics token; each operation's "
            'requirement lists the roles its permission admits (api.md "Authentication and tokens")',
        }
    }
    return spec


def install(app: FastAPI) -> None:
    """Serve :func:`document` as the application's OpenAPI document (built once)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
