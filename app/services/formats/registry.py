"""Every stage format, by name (formats.md "Words" — Stage). A new format is one module and one row.

Each format's class declares what the rest of the product derives from it (``base.DECLARED``: its
default tie-breaks, its display, its TRF export, its label); what is built from them reads them off
the format (``Registry.format_of(stage)``; every format's default chain: ``Registry.session_info``),
and a ``StageFormatName`` without a format fails as this module is imported."""

from __future__ import annotations

from collections.abc import Mapping

from app.core.vocabulary import StageFormatName
from app.services.formats.base import StageFormat
from app.services.formats.double_elimination import DoubleElimination
from app.services.formats.free_for_all import FreeForAll
from app.services.formats.heats import Heats
from app.services.formats.playoff import Playoff
from app.services.formats.round_robin import RoundRobin
from app.services.formats.series import Series
from app.services.formats.single_elimination import SingleElimination
from app.services.formats.swiss import Swiss

FORMATS: Mapping[StageFormatName, StageFormat] = {
    f.name: f
    for f in (
        Swiss(),
        RoundRobin(),
        SingleElimination(),
        DoubleElimination(),
        Heats(),
        FreeForAll(),
        Series(),
        Playoff(),
    )
}

_missing = [n.value for n in StageFormatName if n not in FORMATS]
if _missing:
    raise ImportError(f"stage formats without a format class: {', '.join(_missing)}")
