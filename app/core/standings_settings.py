"""Validation of the settings keys the standings engine owns: ``scoring`` and ``tiebreaks``."""

from __future__ import annotations

from typing import Any

from app.core.errors import Problem


def problems(settings: dict[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    scoring = settings.get("scoring")
    if scoring is not None and not isinstance(scoring, dict):
        out.append(Problem(("settings", "scoring"), "must be an object"))
    tiebreaks = settings.get("tiebreaks")
    if tiebreaks is not None and (
        not isinstance(tiebreaks, list) or not all(isinstance(t, str) for t in tiebreaks)
    ):
        out.append(Problem(("settings", "tiebreaks"), "must be a list of criterion names"))
    return out
