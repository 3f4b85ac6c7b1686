"""The pure rules of webhooks (api.md "Webhooks"): the Standard Webhooks signature, which URLs and
addresses an endpoint may have, and when a failed delivery is tried again.

The signature is Standard Webhooks' ``v1``: HMAC-SHA256, keyed with the base64-decoded part of the
secret after ``whsec_``, over ``"{webhook-id}.{webhook-timestamp}.{body}"``, base64-encoded and
prefixed ``v1,``. The receiver recomputes it over the raw body it received and compares in constant
time; it refuses a timestamp far from its own clock (``TOLERANCE_SECONDS``), so a captured delivery
cannot be replayed later.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
from collections.abc import Mapping
from urllib.parse import urlsplit

SECRET_PREFIX = "whsec_"
SIGNATURE_VERSION = "v1"
TOLERANCE_SECONDS = 300
MAX_URL_LENGTH = 2000

# A failed delivery is tried again after these delays (seconds), the last one repeating, until the
# delivery is a day old; an endpoint whose deliveries have all failed for a day is disabled.
RETRY_DELAYS = (30, 60, 120, 240, 480, 960, 1920, 3600)
GIVE_UP_SECONDS = 24 * 3600
# A delivery handed to a job is not handed to another before this, unless the job reports back: a
# job that never does (its worker died past its retries) is retried by the sweep after it.
LEASE_SECONDS = 600


def signing_key(secret: str) -> bytes:
    """The HMAC key a ``whsec_…`` secret stands for."""
    raw = secret.removeprefix(SECRET_PREFIX)
    return base64.b64decode(raw)


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of one delivery attempt."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(signing_key(secret), signed, hashlib.sha256).digest()
    return f"{SIGNATURE_VERSION},{base64.b64encode(digest).decode()}"


def verify(secret: str, headers: Mapping[str, str], body: bytes, now: int) -> bool:
    """What a receiver does: the headers' signature matches the body, and the timestamp is recent.
    (Arbiter sends; this is the reference the documentation and the tests check against.)"""
    try:
        msg_id = headers["webhook-id"]
        timestamp = int(headers["webhook-timestamp"])
        signatures = headers["webhook-signature"].split()
    except (KeyError, ValueError):
        return False
    if abs(now - timestamp) > TOLERANCE_SECONDS:
        return False
    expected = sign(secret, msg_id, timestamp, body)
    return any(hmac.compare_digest(expected, s) for s in signatures)


# What url_problem accepts, as a pattern a schema can state (an ASCII host name or IPv4 address,
# a port 1–65535, no credentials, no fragment); whether the host resolves to a public address is
# known only by asking (``app/services/webhooks.py``).
_PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
_HOST = r"[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})*\.?"  # labels of 1–63 characters (IDNA)
URL_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]?://{_HOST}(:{_PORT})?([/?][^#\s]*)?$"


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be an endpoint (None when it can): http or https, a host, no credentials."""
    if len(url) > MAX_URL_LENGTH:
        return f"at most {MAX_URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"not a URL: {exc}"
    if parts.scheme not in ("http", "https"):
        return "only http and https URLs are allowed"
    if not parts.hostname:
        return "the URL has no host"
    if parts.username is not None or parts.password is not None:
        return "credentials in the URL are not allowed (the signature authenticates Arbiter)"
    if port == 0:
        return "port 0 is not a port"
    if parts.fragment:
        return "a URL with a fragment (#…) is not an endpoint"
    return None


def address_problem(address: str) -> str | None:
    """Why an endpoint may not be reached at ``address`` (None when it may): only public addresses —
    no loopback, private, link-local (the cloud metadata service), multicast or reserved ones."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address} is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        # an IPv6 address that carries an IPv4 one reaches that one: it must be public too
        # (mapped ::ffff:a.b.c.d, 6to4 2002:aabb:ccdd::, Teredo's server and client)
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif ip.sixtofour is not None:
            why = address_problem(str(ip.sixtofour))
            if why is not None:
                return f"a 6to4 address of {ip.sixtofour} ({why})"
        elif ip.teredo is not None:
            for inner in ip.teredo:
                why = address_problem(str(inner))
                if why is not None:
                    return f"a Teredo address of {inner} ({why})"
    site_local = isinstance(ip, ipaddress.IPv6Address) and ip.is_site_local
    for test, word in (
        (ip.is_unspecified, "an unspecified"),
        (site_local, "a site-local"),
        (ip.is_loopback, "a loopback"),
        (ip.is_link_local, "a link-local"),
        (ip.is_private, "a private"),
        (ip.is_multicast, "a multicast"),
        (ip.is_reserved, "a reserved"),
    ):
        if test:
            return f"{word} address"
    if not ip.is_global:
        return "not a public address"
    return None


def retry_delay(failures: int) -> int:
    """Seconds before the next attempt of a delivery that has failed ``failures`` times (≥ 1)."""
    return RETRY_DELAYS[min(max(failures, 1), len(RETRY_DELAYS)) - 1]
