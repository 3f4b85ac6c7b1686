"""``arbiter backup PATH``: a consistent copy of the embedded SQLite database, taken while it serves.

SQLite's online backup copies the database page by page under a read transaction; in WAL mode the
API's writers go on meanwhile, and the copy is the database as of one moment. It is written beside
PATH and renamed into place once complete and checked, so PATH is never half a database. Postgres is
backed up with its own tool, ``pg_dump`` (docs/operations.md "Back up").
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupRefused(Exception):
    """Why no backup was taken (one line for the operator)."""


def backup_sqlite(database_url: str, target: Path, *, replace: bool = False) -> str:
    """Copy the SQLite database of ``database_url`` to ``target``; a line saying what was copied."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        raise BackupRefused(
            f"`arbiter backup` copies the SQLite database; this one is {url.get_backend_name()}: "
            "use pg_dump (pg_dump --format=custom --file PATH DATABASE)"
        )
    source = url.database
    if not source or source == ":memory:" or not Path(source).is_file():
        raise BackupRefused(f"no database file at {source or '(none)'}")
    target = target.expanduser()
    if target.exists() and not replace:
        raise BackupRefused(f"{target} exists: choose another path, or pass --force to replace it")
    if target.resolve() == Path(source).resolve():
        raise BackupRefused("the backup cannot replace the database itself")
    if not target.parent.is_dir():
        raise BackupRefused(f"no directory {target.parent}")
    partial = target.with_name(f".{target.name}.partial")
    src = sqlite3.connect(Path(source).resolve(), timeout=30)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            check = dst.execute("PRAGMA quick_check").fetchone()[0]
            pages = dst.execute("PRAGMA page_count").fetchone()[0]
        finally:
            dst.close()
    except sqlite3.Error as exc:
        partial.unlink(missing_ok=True)
        raise BackupRefused(f"the backup failed: {exc}") from None
    finally:
        src.close()
    if check != "ok":
        partial.unlink(missing_ok=True)
        raise BackupRefused(f"the copy did not pass its check ({check}); nothing was written")
    os.replace(partial, target)
    return f"backed up {source} to {target} ({pages} pages, {target.stat().st_size} bytes)"
