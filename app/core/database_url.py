"""What ``DATABASE_URL`` may say, and what the driver is handed for it (docs/operations.md
"Database URL").

A URL names the database in the forms hosting platforms hand out: ``postgres://`` and
``postgresql://`` mean the asyncpg driver, ``sqlite://`` aiosqlite. libpq's query parameters are
read under their own names and handed to asyncpg in its own form (``sslmode`` → ``ssl``,
``connect_timeout`` → ``timeout``, ``application_name`` and ``options``' ``-c name=value`` →
``server_settings``); any other parameter is refused by name, before a connection is tried. A
password may be given apart from the URL (``DATABASE_PASSWORD``), never both.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

# The scheme a URL may name, and the async driver it means.
DRIVERS = {
    "postgres": "postgresql+asyncpg",
    "postgresql": "postgresql+asyncpg",
    "postgresql+asyncpg": "postgresql+asyncpg",
    "sqlite": "sqlite+aiosqlite",
    "sqlite+aiosqlite": "sqlite+aiosqlite",
}
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
TARGET_SESSION_ATTRS = ("any", "primary", "standby", "read-write", "read-only", "prefer-standby")
# Query parameters of a Postgres URL: libpq's that asyncpg takes in another form, and those the
# driver takes as they are (``host``: a socket directory; SQLAlchemy's ``prepared_statement_cache_size``).
TRANSLATED = ("sslmode", "ssl", "connect_timeout", "application_name", "options")
PASSED = ("target_session_attrs", "host", "port", "prepared_statement_cache_size")
KNOWN = TRANSLATED + PASSED
# libpq's that asyncpg reads from the environment instead: the variable to set.
FROM_ENVIRONMENT = {
    "sslrootcert": "PGSSLROOTCERT",
    "sslcert": "PGSSLCERT",
    "sslkey": "PGSSLKEY",
    "sslcrl": "PGSSLCRL",
    "passfile": "PGPASSFILE",
}
# libpq's that asyncpg has no counterpart for: why, in the refusal.
UNSUPPORTED = {
    "channel_binding": "asyncpg does not do SCRAM channel binding: drop it (sslmode=verify-full "
    "checks the server instead)",
    "gssencmode": "asyncpg does not encrypt with GSSAPI: drop it, use sslmode",
}
_SETTING = re.compile(r"^[A-Za-z_][\w.]*=")
_EXPECTED = "postgres://user@host:5432/name or sqlite:///path/to/arbiter.db"


class BadDatabaseUrl(ValueError):
    """The URL, or one of its parts, named in one line (never the password)."""


def normalize(url: str, password: str | None = None) -> str:
    """The URL as SQLAlchemy takes it (``postgresql+asyncpg://…``, ``sqlite+aiosqlite://…``), its
    query checked, ``password`` (``DATABASE_PASSWORD``) written into it; a ``BadDatabaseUrl``
    naming what is wrong."""
    url = url.strip()
    scheme, sep, rest = url.partition("://")
    if not sep or not scheme:
        raise BadDatabaseUrl(f"not a URL: expected {_EXPECTED}")
    driver = DRIVERS.get(scheme.lower())
    if driver is None:
        raise BadDatabaseUrl(
            f"the scheme {scheme}:// is not one Arbiter runs on: expected {_EXPECTED} "
            "(postgresql:// and postgresql+asyncpg:// work too)"
        )
    out = f"{driver}://{rest}"
    if driver.startswith("sqlite"):
        if password:
            raise BadDatabaseUrl("DATABASE_PASSWORD is set but the database is a SQLite file")
        return out
    parts = urlsplit(out)
    _check_hosts(parts.netloc)
    query = parse_qsl(parts.query, keep_blank_values=True)
    if len({k for k, _ in query}) < len(query):
        raise BadDatabaseUrl("a query parameter is given twice")
    check_query(dict(query))
    connect_arguments(dict(query))  # refuses a value the driver would not take
    if password:
        parts = parts._replace(netloc=_with_password(parts.netloc, password))
    if query and any(k in ("sslmode", "ssl") for k, _ in query):
        # libpq's name reads as asyncpg's in the URL a process prints
        query = [("ssl" if k == "sslmode" else k, v) for k, v in query]
        parts = parts._replace(query=urlencode(query, quote_via=quote))
    return urlunsplit(parts)


def _check_hosts(netloc: str) -> None:
    hosts = netloc.rpartition("@")[2]
    for host in hosts.split(","):
        if host.startswith("["):  # an IPv6 address: [::1]:5432
            port = host.partition("]")[2].removeprefix(":")
        else:
            port = host.partition(":")[2]
        if port and not (port.isdigit() and 0 < int(port) < 65536):
            raise BadDatabaseUrl(f"the port {port!r} is not a number from 1 to 65535")


def _with_password(netloc: str, password: str) -> str:
    userinfo, at, hosts = netloc.rpartition("@")
    if not at or not userinfo:
        raise BadDatabaseUrl(
            "DATABASE_PASSWORD is set but DATABASE_URL names no user (postgres://user@host/…)"
        )
    if ":" in userinfo:
        raise BadDatabaseUrl(
            "the password is given twice: in DATABASE_URL and in DATABASE_PASSWORD; keep one"
        )
    return f"{userinfo}:{quote(password, safe='')}@{hosts}"


def connect_arguments(params: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Turn a Postgres URL's query parameters, among the driver's keyword arguments ``params``,
    into asyncpg's (in place, and returned); a ``BadDatabaseUrl`` names one it does not know."""
    for name in list(params):
        if name in FROM_ENVIRONMENT:
            raise BadDatabaseUrl(
                f"the query parameter {name} is not read: set {FROM_ENVIRONMENT[name]} instead"
            )
    given = {k: params.pop(k) for k in TRANSLATED if k in params}
    if "sslmode" in given or "ssl" in given:
        if "sslmode" in given and "ssl" in given:
            raise BadDatabaseUrl("sslmode and ssl are both given: keep one")
        mode = given.get("sslmode", given.get("ssl"))
        if isinstance(mode, str) and mode not in SSL_MODES:
            raise BadDatabaseUrl(f"sslmode={mode} is none of {', '.join(SSL_MODES)}")
        params["ssl"] = mode  # a mode from the URL, or a caller's own SSLContext
    if "connect_timeout" in given:
        params["timeout"] = _seconds(str(given["connect_timeout"]))
    server_settings: dict[str, str] = dict(params.pop("server_settings", None) or {})
    if "application_name" in given:
        server_settings["application_name"] = str(given["application_name"])
    if "options" in given:
        server_settings.update(_options(str(given["options"])))
    if server_settings:
        params["server_settings"] = server_settings
    tsa = params.get("target_session_attrs")
    if tsa is not None and tsa not in TARGET_SESSION_ATTRS:
        raise BadDatabaseUrl(f"target_session_attrs={tsa} is none of {', '.join(TARGET_SESSION_ATTRS)}")
    return params


def check_query(query: MutableMapping[str, Any]) -> None:
    """Refuse a query parameter no Postgres URL of Arbiter's may carry (named, with those it may)."""
    for name in query:
        if name in UNSUPPORTED:
            raise BadDatabaseUrl(f"the query parameter {name} is not supported: {UNSUPPORTED[name]}")
        if name not in KNOWN and name not in FROM_ENVIRONMENT:
            raise BadDatabaseUrl(f"the query parameter {name} is not understood (known: {', '.join(KNOWN)})")


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0
    if not seconds > 0:
        raise BadDatabaseUrl(f"connect_timeout={value} is not a positive number of seconds")
    return seconds


def _options(value: str) -> dict[str, str]:
    """libpq's ``options``: ``-c name=value`` (or ``-cname=value``, ``--name=value``) each."""
    try:
        words = shlex.split(value.replace("\\ ", "\x00"))
    except ValueError:
        words = []
    words = [w.replace("\x00", " ") for w in words]
    out: dict[str, str] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word == "-c" and i + 1 < len(words):
            setting, i = words[i + 1], i + 2
        elif word.startswith("-c") and len(word) > 2 or word.startswith("--") and len(word) > 2:
            setting, i = word[2:], i + 1
        else:
            setting = ""
        if not _SETTING.match(setting):
            raise BadDatabaseUrl(f"options={value!r}: only -c name=value is understood")
        name, _, val = setting.partition("=")
        out[name] = val
    return out
