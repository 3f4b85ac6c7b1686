"""The one place that names every stage format, preset and job kind: ``build_registry()``.

The entry points (``app/main.py`` for the API, ``workers/main.py`` for the arq worker) call it once
at start-up and hand the registry to the session factory; the layers below never import a format,
a preset or a job function to find it. A new format, preset or job kind is one module and one row
here (or in the table this module reads).
"""

from __future__ import annotations

from app.services.formats.registry import FORMATS
from app.services.job_kinds import KINDS
from app.services.presets import battlebooks, battlebooks_royal, bga, titan_arena
from app.services.registry import Registry


def build_registry() -> Registry:
    return Registry(
        formats=FORMATS,
        rules={**battlebooks.RULES, **battlebooks_royal.RULES, **bga.RULES, **titan_arena.RULES},
        job_kinds=KINDS,
    )
