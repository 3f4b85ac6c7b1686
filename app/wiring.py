"""The one place that names every stage format, preset and job kind: ``build_registry()``.

The entry points (``app/main.py`` for the API, ``workers/main.py`` for the arq worker) call it once
at start-up and hand the registry to the session factory; the layers below never import a format,
a preset or a job function to find it. A new format, preset or job kind is one module and one row
here (or in the table this module reads). A preset's rules are those of a preset some game declares
(``app/core/games/registry.py``: ``GAMES``, collected in ``app/core/presets.py``); rules for a
preset no game declares fail as the registry is built (``Registry``), rules given twice as this
module is imported.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.services.formats.registry import FORMATS
from app.services.job_kinds import KINDS
from app.services.presets import battlebooks, battlebooks_royal, bga, titan_arena
from app.services.registry import Registry
from app.services.rules import EventRules

RULE_MODULES = (battlebooks, battlebooks_royal, bga, titan_arena)
"""The presets' rule modules in app/services/presets/, each with its ``RULES`` by preset name."""


def _rules() -> Mapping[str, EventRules]:
    rules: dict[str, EventRules] = {}
    for module in RULE_MODULES:
        for preset, rule in module.RULES.items():
            if preset in rules:
                raise ImportError(f"{module.__name__}: rules for preset {preset!r} are given twice")
            rules[preset] = rule
    return rules


RULES = _rules()


def build_registry() -> Registry:
    return Registry(formats=FORMATS, rules=RULES, job_kinds=KINDS)
