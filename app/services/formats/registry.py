"""Every stage format, by name (formats.md "Words" — Stage). A new format is one module and one row."""

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
