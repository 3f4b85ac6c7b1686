"""Optimistic concurrency (api.md "Conventions" — Concurrency): a resource that changes carries a
``version``; a change names the version it was made against (``If-Match``) and is refused when it
is stale, so two organizers never overwrite each other's change unseen."""

from __future__ import annotations

from app.core.errors import PreconditionFailed, PreconditionRequired


def check_if_match(if_match: str | None, version: int) -> None:
    """428 without ``If-Match``; 412 when it names another version than ``version``."""
    if if_match is None:
        raise PreconditionRequired("If-Match with the resource's current version is required")
    # a read's tag may follow the version with its body's hash ("<version>-<hash>", app/api/caching.py)
    tag = if_match.strip().removeprefix("W/").strip('"').split("-", 1)[0]
    if tag != str(version):
        raise PreconditionFailed(f"version {tag} is stale; the current version is {version}")
