"""Log lines: one per record, readable text or one JSON object (``ARBITER_LOG_FORMAT=json``).

Every record carries the request id of the request (or of the job) it belongs to, from a context
variable the request boundary and the job runner set. Structured fields travel in ``extra={"fields":
{...}}`` (``event()`` writes one such line): JSON puts them beside ``msg``, text appends them as
``key=value``. ``log_config()`` is the one logging configuration of every entry point — the API
(handed to uvicorn, so its own lines look the same), the worker and the command line.
"""

from __future__ import annotations

import json
import logging
import logging.config
import re
import traceback
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

_REQUEST_ID: ContextVar[str | None] = ContextVar("arbiter_request_id", default=None)

# A client's X-Request-ID is kept when it is 1–200 printable ASCII characters without spaces;
# anything else (empty, too long, control characters) is replaced by a fresh id.
_VALID_ID = re.compile(r"[!-~]{1,200}")

# The loggers of the libraries under Arbiter, and how much of them an operator wants to read.
LIBRARY_LEVELS = {
    "uvicorn": "INFO",
    "uvicorn.error": "INFO",
    "uvicorn.access": "WARNING",  # Arbiter writes its own line per request
    "arq": "WARNING",  # Arbiter writes its own line per job; arq's cron lines are noise
    "sqlalchemy": "WARNING",
    "alembic": "WARNING",  # `arbiter migrate` shows its steps
    "asyncio": "WARNING",
}


def redact(url: str) -> str:
    """A URL fit for a log line: its password replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit(parts._replace(netloc=user + host))


def current_request_id() -> str | None:
    return _REQUEST_ID.get()


def new_request_id() -> str:
    return uuid.uuid4().hex


def accept_request_id(value: str | None) -> str:
    """The client's id when it is usable, else a fresh one."""
    if value is not None and _VALID_ID.fullmatch(value):
        return value
    return new_request_id()


@contextmanager
def request_context(request_id: str | None) -> Iterator[None]:
    """Records logged inside carry ``request_id`` (a request, or a job a request enqueued)."""
    token = _REQUEST_ID.set(request_id)
    try:
        yield
    finally:
        _REQUEST_ID.reset(token)


def event(logger: logging.Logger, level: int, message: str, **fields: Any) -> None:
    """One structured line: ``message`` and its fields. (The record is made directly: a line per
    request must not pay for logging's search of the caller's frame, which no line shows.)"""
    if logger.isEnabledFor(level):
        logger.handle(
            logger.makeRecord(logger.name, level, "", 0, message, (), None, extra={"fields": fields})
        )


class ContextFilter(logging.Filter):
    """Stamps every record with the current request id (when there is one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _REQUEST_ID.get()
        return True


def _timestamp(record: logging.LogRecord) -> str:
    return (
        datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields: Mapping[str, Any] = getattr(record, "fields", None) or {}
    out = dict(fields)
    rid = getattr(record, "request_id", None)
    if rid is not None and "request_id" not in out:
        out["request_id"] = rid
    return out


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", "pid", …fields, "exc"?}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        for key, value in _fields(record).items():
            line.setdefault(key, value)
        if record.exc_info:
            line["exc"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        return json.dumps(line, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``2026-12-01T09:50:00.123Z INFO  arbiter.http  GET /v1/jobs/{job_id} 200 3.1ms request_id=…``"""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_timestamp(record), f"{record.levelname:<5}", record.name, "", record.getMessage()]
        line = " ".join(parts)
        extra = " ".join(f"{k}={_text(v)}" for k, v in _fields(record).items())
        if extra:
            line = f"{line}  {extra}"
        if record.exc_info:
            line = f"{line}\n{''.join(traceback.format_exception(*record.exc_info)).rstrip()}"
        return line


def _text(value: Any) -> str:
    s = str(value)
    return json.dumps(s) if (not s or any(c.isspace() or c in '"=' for c in s)) else s


def log_config(fmt: str = "text", level: str = "INFO") -> dict[str, Any]:
    """The ``logging.config.dictConfig`` document: one handler on stderr for everything."""
    formatter = JsonFormatter if fmt == "json" else TextFormatter
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": ContextFilter}},
        "formatters": {"arbiter": {"()": formatter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "arbiter",
                "filters": ["context"],
            }
        },
        "root": {"handlers": ["stderr"], "level": "WARNING"},
        "loggers": {
            "arbiter": {"level": level},
            **{
                name: {"level": lvl, "handlers": [], "propagate": True}
                for name, lvl in LIBRARY_LEVELS.items()
            },
        },
    }


_configured = False


def configure(fmt: str = "text", level: str = "INFO", *, force: bool = True) -> None:
    """Install the configuration. Without ``force`` it leaves a process whose logging someone else
    already set up (a test runner, an embedding server) alone."""
    global _configured
    if not force and (_configured or logging.getLogger().handlers):
        return
    logging.config.dictConfig(log_config(fmt, level))
    _configured = True
