"""Preset rules of the seeds' events; importing this package registers them in app.services.rules.RULES."""

from app.services.presets import (
    battlebooks,  # noqa: F401
    battlebooks_royal,  # noqa: F401
    bga,  # noqa: F401
    titan_arena,  # noqa: F401
)
