"""The registries a running process works with: stage formats, preset rules and job kinds.

Nothing here imports a format, a preset or a job: the entry points (``app/main.py``,
``workers/main.py``) build one ``Registry`` (``app/wiring.py``) and hand it to the session factory,
so every session — one per request, one per job — carries it, and a service asks its session which
format runs a stage or which preset's rules an event follows. Adding a format, preset or job kind
is one module and one row in ``app/wiring.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.core.presets import PRESETS
from app.core.vocabulary import JobKindName, StageFormatName
from app.db.models import Event, Stage
from app.jobs import JobKind
from app.services.formats.base import StageFormat
from app.services.reads import TIEBREAKS_KEY
from app.services.rules import GENERIC, EventRules

INFO_KEY = "registry"


@dataclass(frozen=True)
class Registry:
    formats: Mapping[StageFormatName, StageFormat]
    rules: Mapping[str, EventRules]
    job_kinds: Mapping[JobKindName | str, JobKind]

    def __post_init__(self) -> None:
        unknown = sorted(set(self.rules) - set(PRESETS))
        if unknown:
            raise ValueError(f"rules for presets no game declares (app/core/games/registry.py): {unknown}")

    def format_of(self, stage: Stage) -> StageFormat:
        return self.formats[StageFormatName(stage.format)]

    def rules_for(self, event: Event) -> EventRules:
        """The preset's rules; the general engine's for ``generic`` and for a preset with no hooks."""
        return self.rules.get(event.preset or "generic", GENERIC)

    def with_job_kinds(self, kinds: Mapping[JobKindName | str, JobKind]) -> Registry:
        return replace(self, job_kinds=kinds)

    def session_info(self) -> dict[str, Any]:
        """What a session factory gives every session it makes (``make_sessionmaker``): the registry,
        and every format's default tie-break chain, which the standings read (``reads.stage_config``)
        below the formats."""
        return {INFO_KEY: self, TIEBREAKS_KEY: {name: f.tiebreaks for name, f in self.formats.items()}}


def registry_of(session: AsyncSession) -> Registry:
    registry = session.info.get(INFO_KEY)
    if registry is None:
        raise RuntimeError("this session was made without the registry (make_sessionmaker(engine, registry))")
    assert isinstance(registry, Registry)
    return registry
