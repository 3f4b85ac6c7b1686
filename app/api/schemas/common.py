"""What every request schema shares: the strict base models and the bounded words (api.md "Limits")."""

from __future__ import annotations

import re
import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import (
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
)

from app.core.limits import ID_LENGTH, NAME_LENGTH, SCORE, invisible


def _bool_for_number(value: Any, annotation: Any) -> bool:
    """True when ``value`` holds a boolean where ``annotation`` wants a number (booleans are not
    numbers anywhere in the contract: ``{"rating": false}`` is a 422, not a 0)."""
    if annotation is bool or annotation is Any:
        return False
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _bool_for_number(value, args[0])
    if origin in (Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        return bool(options) and all(_bool_for_number(value, a) for a in options)
    if annotation in (int, float):
        return isinstance(value, bool)
    if origin in (list, set, frozenset) and isinstance(value, list) and args:
        return any(_bool_for_number(v, args[0]) for v in value)
    if origin is tuple and isinstance(value, list) and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return any(_bool_for_number(v, args[0]) for v in value)
        return any(_bool_for_number(v, a) for v, a in zip(value, args, strict=False))
    if origin is dict and isinstance(value, dict) and len(args) == 2:
        return any(_bool_for_number(v, args[1]) for v in value.values())
    return False


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


# Bounded words of every request (api.md "Limits"): an id, a name or label, a number of a score.
Id = Annotated[str, Field(max_length=ID_LENGTH)]
Label = Annotated[str, Field(max_length=NAME_LENGTH)]
Score = Annotated[float, Field(ge=-SCORE, le=SCORE)]


def _iso_text(value: Any) -> Any:
    """A time is a text in ISO 8601 (the schema's ``date-time``): the number of seconds since 1970
    that the parser would also take, as a number or as digits, is no time of this contract."""
    if not isinstance(value, str) or _NUMBER.fullmatch(value.strip()):
        raise ValueError("must be a time in ISO 8601 with its offset, e.g. 2026-05-01T18:30:00Z")
    return value


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# A moment of a request (a body's time, a query's ``since``): ISO 8601 text with its offset.
Instant = Annotated[AwareDatetime, BeforeValidator(_iso_text)]


class Strict(BaseModel):
    """Request bodies: unknown fields and non-finite numbers are refused (422), never stored; a
    boolean is not a number, and a text of invisible characters only is no text."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _plain_values(cls, value: Any, info: ValidationInfo) -> Any:
        field = cls.model_fields.get(info.field_name or "")
        # only a boolean, or a list or object holding one, can be a boolean for a number
        if (
            isinstance(value, bool | list | dict)
            and field is not None
            and _bool_for_number(value, field.annotation)
        ):
            raise ValueError("a boolean is not a number")
        if any(t and invisible(t) for t in _texts(value)):
            raise ValueError("must contain a visible character")
        return value


class StrictTypes(Strict):
    """Request bodies whose types are strict too: `true` is not a number, "1" is not an integer."""

    model_config = ConfigDict(strict=True)


# --- players ---------------------------------------------------------------------------------
