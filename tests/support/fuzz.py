"""The fuzz run: schemathesis over the OpenAPI document a real ``arbiter serve`` serves, with the admin
token, on a fresh database of each backend; the server's own log lines count the requests it answered
and the server errors among them.

    python -m tests.support.fuzz                       # `make fuzz`: every check, stateful links
    python -m tests.support.fuzz --backend sqlite --max-examples 3 --checks not_a_server_error

``make fuzz`` fails on a server error (5xx) and reports the other checks' findings; the short run in
the test suite (tests/test_fuzz.py) gates on server errors alone.

Each backend's run writes ``<out>/<backend>/rejected.json``: every schema-valid request the server
refused (schemathesis' ``positive_data_acceptance``, ST202), counted per operation and per reason
(the status and the fields the problem names), with one message and one request of each; and the
refusals counted as expected by ``UNEXPRESSIBLE`` below (a request no schema can tell from a good one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from app.cli import migrate
from tests.support.processes import ROOT, env, free_port, spawn, stop, wait_http

BACKENDS = ("postgres", "sqlite")


@dataclass
class FuzzRun:
    backend: str
    requests: int
    server_errors: int
    exit_code: int
    seconds: float
    errors_by_route: Counter[str] = field(default_factory=Counter)
    output: str = ""
    # schema-valid requests refused, by operation (positive_data_acceptance; rejected.json has why)
    rejected: Counter[str] = field(default_factory=Counter)
    excused: int = 0

    def line(self) -> str:
        where = ", ".join(f"{route} {n}" for route, n in self.errors_by_route.most_common(10))
        return (
            f"fuzz {self.backend}: {self.requests} requests, {self.server_errors} server errors (5xx)"
            f"{' — ' + where if where else ''}; {sum(self.rejected.values())} schema-valid requests "
            f"rejected on {len(self.rejected)} operations ({self.excused} refusals no schema can "
            f"express); schemathesis exit {self.exit_code}; {self.seconds:.0f} s"
        )


def _lines(log: Path) -> list[dict[str, Any]]:
    """The server's JSON lines (split on newlines only: a fuzzed path may hold U+2028 and kin, which
    str.splitlines would split on)."""
    out = []
    for line in log.read_text().split("\n"):
        if line.strip():
            out.append(json.loads(line))
    return out


def _postgres_database() -> tuple[str, str, str]:
    from tests.support.services import admin_execute

    server = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres")
    name = f"arbiter_fuzz_{uuid.uuid4().hex[:10]}"
    asyncio.run(admin_execute(server, f'CREATE DATABASE "{name}"'))
    return server, name, make_url(server).set(database=name).render_as_string(hide_password=False)


@dataclass(frozen=True)
class Unexpressible:
    """A refusal of a schema-valid request that no schema can foresee: ``operations`` (schemathesis'
    labels, ``METHOD /path``; empty: every operation) answering ``status``, for the problem's
    ``errors`` at ``loc`` (a prefix of their location; None: anywhere) that, when ``msg`` is given,
    say it (a regular expression their message matches); without ``loc`` and ``msg``, any problem of that status. A
    refusal is excused when rules account for every one of its errors. ``why`` is what the report
    says."""

    why: str
    status: int
    operations: tuple[str, ...] = ()
    loc: tuple[str, ...] | None = None
    msg: str | None = None
    ruled: bool = False  # only a problem that names the game's rule broken (``rule``)

    def applies(self, operation: str, status: int, problem: dict[str, Any]) -> bool:
        if self.ruled and not problem.get("rule"):
            return False
        return status == self.status and (not self.operations or operation in self.operations)

    def names(self, error: dict[str, Any]) -> bool:
        """Whether this rule accounts for one of the problem's ``errors``."""
        loc = tuple(str(part) for part in error.get("loc", ()))
        if self.loc is not None and loc[: len(self.loc)] != self.loc:
            return False
        return self.msg is None or re.search(self.msg, str(error.get("msg", ""))) is not None


# JSON Schema's integer is a number without a fraction, so 1.0 is one, and the generators send it;
# the server's integers are written as such (the strictly typed bodies, the games' records: "1" is
# no integer either). A refusal at a place where the request holds such a number is excused.
INTEGRAL_FLOAT = "an integer is written without a fraction part (1, not 1.0)"


def integral_floats(value: Any, at: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Where a JSON body holds a float with no fraction (``3.0``)."""
    if isinstance(value, float) and value.is_integer():
        return {at}
    if isinstance(value, dict):
        return {p for k, v in value.items() for p in integral_floats(v, (*at, str(k)))}
    if isinstance(value, list):
        return {p for i, v in enumerate(value) for p in integral_floats(v, (*at, str(i)))}
    return set()


def _explain(
    operation: str, status: int, problem: dict[str, Any], floats: frozenset[tuple[str, ...]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """(the rules that account for the refusal, its errors none accounts for)."""
    rules = [rule for rule in UNEXPRESSIBLE if rule.applies(operation, status, problem)]
    whole = [rule.why for rule in rules if rule.loc is None and rule.msg is None]
    if whole:
        return whole[:1], []
    errors = [e for e in problem.get("errors") or [] if isinstance(e, dict)]
    why: list[str] = []
    left: list[dict[str, Any]] = []
    for error in errors:
        loc = tuple(str(part) for part in error.get("loc", ()))
        naming = [rule.why for rule in rules if rule.names(error)]
        bare = loc[1:] if loc[:1] == ("body",) else loc
        if status == 422 and any(f[: len(bare)] == bare for f in floats):
            naming.append(INTEGRAL_FLOAT)
        if not naming:
            left.append(error)
        elif naming[0] not in why:
            why.append(naming[0])
    return (why, left) if errors else ([], [])


def excused_by(
    operation: str, status: int, problem: dict[str, Any], floats: frozenset[tuple[str, ...]] = frozenset()
) -> list[str]:
    """Why the refusal of a schema-valid request is right (the rules that account for it, each of its
    errors by one of them at least, or by a float with no fraction at or under its place,
    ``floats``); empty when nothing does: a finding."""
    why, left = _explain(operation, status, problem, floats)
    return [] if left else why


def unexplained(
    operation: str, status: int, problem: dict[str, Any], floats: frozenset[tuple[str, ...]] = frozenset()
) -> list[dict[str, Any]]:
    """A finding's errors that no rule (nor a float with no fraction) accounts for: what to fix."""
    return _explain(operation, status, problem, floats)[1] or [
        e for e in problem.get("errors") or [] if isinstance(e, dict)
    ]


# The refusals positive_data_acceptance counts as expected: the server is right to refuse them, and
# nothing in a JSON Schema could say so beforehand (each says why). Any other refusal of a
# schema-valid request is a finding: a bound the schema does not state.
UNEXPRESSIBLE: tuple[Unexpressible, ...] = (
    Unexpressible(
        'a cursor is opaque (api.md "Paging"): whether it names an item of this list is the list\'s state',
        422,
        loc=("query", "cursor"),
    ),
    # ratings: a pool's clamp is its settings, which a start rating must lie within; and what the
    # settings compare among themselves (min < max, start between them, a K schedule's rising limits
    # ending in null), JSON Schema, which compares a value with constants only, cannot
    Unexpressible(
        "a start rating lies within its pool's own [min, max]",
        422,
        ("PUT /v1/players/{player_id}/ratings/{pool}",),
        loc=("body", "rating"),
        msg="^must lie within",
    ),
    *(
        Unexpressible(
            "a pool's settings compared with each other", 422, ("PUT /v1/ratings/{pool}/settings",), loc, msg
        )
        for loc, msg in (
            (("body", "max"), "^must satisfy 0 <= min < max$"),
            (("body", "start"), "^must lie within"),
            (("body", "k"), "^the last step's games_limit must be null$"),
            (("body", "k"), "^games_limit must be a positive integer$"),
            (("body", "k"), "^games_limits must increase$"),
        )
    ),
    # what a request names must exist in the event, the catalog or the database: like a 404, but
    # of an id inside the body
    Unexpressible(
        "an id in the body names nothing of this event",
        422,
        (
            "POST /v1/events/{event_id}/clock",
            "PUT /v1/events/{event_id}/forbidden-pairs",
        ),
        msg="is not in this event$",
    ),
    Unexpressible(
        "a stage's tables fit its game's seats, which are the catalog's data",
        422,
        ("POST /v1/events", "PATCH /v1/events/{event_id}"),
        loc=("settings", "stages"),
        msg="seats of game",
    ),
    Unexpressible(
        "an event's min_entries is no more than its capacity",
        422,
        ("POST /v1/events", "PATCH /v1/events/{event_id}"),
        loc=("settings", "min_entries"),
        msg="is above the capacity",
    ),
    Unexpressible(
        "a points-per-place list has one value per seat of its stage's tables",
        422,
        ("POST /v1/events", "PATCH /v1/events/{event_id}"),
        loc=("settings",),
        msg="a points-per-place list has exactly one value per seat$",
    ),
    Unexpressible(
        "an event starts when its entries meet its preset's rules (what each registered is data)",
        422,
        ("POST /v1/events/{event_id}/start",),
        loc=("entries",),
    ),
    Unexpressible(
        "a game is one of the catalog, which is data (POST /v1/games)",
        422,
        ("POST /v1/events",),
        loc=("game",),
        msg="^unknown game",
    ),
    # a CSV file is one text: its header and rows are checked as the JSON rows are, which no
    # file's schema can say, and it must be UTF-8
    Unexpressible(
        "a CSV registration's header and rows",
        422,
        ("POST /v1/events/{event_id}/entries", "POST /v1/events/{event_id}/entries/csv"),
        loc=("csv",),
    ),
    Unexpressible(
        "a CSV file is UTF-8 text", 422, ("POST /v1/events/{event_id}/entries/csv",), loc=("file",)
    ),
    Unexpressible(
        "a player is entered once in an event",
        422,
        ("POST /v1/events/{event_id}/entries", "POST /v1/events/{event_id}/entries/csv"),
        msg="is already entered|^the same player as row",
    ),
    Unexpressible(
        "a forbidden pair is listed once, either way round",
        422,
        ("PUT /v1/events/{event_id}/forbidden-pairs",),
        loc=("pairs",),
        msg="^this pair is listed twice$",
    ),
    Unexpressible(
        "a name registers one player: when several players of the database bear it, the row says which",
        422,
        ("POST /v1/events/{event_id}/entries", "POST /v1/events/{event_id}/entries/csv"),
        msg="^several players are named .*; register by player_id or external_id$",
    ),
    Unexpressible(
        "a player_id names a player of the database",
        422,
        ("POST /v1/events/{event_id}/entries", "POST /v1/events/{event_id}/entries/csv"),
        msg=r"^player .* not found$",
    ),
    Unexpressible(
        "a seed number is given once in an event",
        422,
        ("POST /v1/events/{event_id}/entries", "POST /v1/events/{event_id}/entries/csv"),
        msg=r"^seed \d+ is given twice|^seed \d+ is already given to another entry$",
    ),
    Unexpressible(
        "a clock starts from the event's game_minutes unless told its seconds",
        422,
        ("POST /v1/events/{event_id}/clock",),
        loc=("body", "seconds"),
        msg="the event sets no game_minutes$",
    ),
    # who asks: the organizer names the finalist, a finalist's own token does not
    Unexpressible(
        "the organizer names the finalist; an entry's own token needs not",
        422,
        ("POST /v1/events/{event_id}/titan-arena/final-rules",),
        loc=("entry_id",),
        msg="^is required for the organizer$",
    ),
    # bounds between two fields of one body: JSON Schema compares a value with constants only
    Unexpressible(
        "max_seats is at least min_seats",
        422,
        ("POST /v1/games",),
        loc=("body",),
        msg="max_seats must be at least min_seats$",
    ),
    Unexpressible(
        "a table is no larger than the players",
        422,
        ("POST /v1/schedules/round-robin",),
        loc=("table_size",),
        msg="is larger than the",
    ),
    Unexpressible(
        "a design's seats split into tables, within the most tables",
        422,
        ("POST /v1/schedules/round-robin",),
        msg="cannot be split into tables of|more than the limit of",
    ),
    Unexpressible(
        "a season's points never rise from one place to the next",
        422,
        ("POST /v1/seasons",),
        loc=("body", "points"),
        msg="^a place never earns more than the place before it$",
    ),
    # the games' tools: a record must be a legal game — a move in its turn, by a player seated, of
    # a card or a creature the record or its catalog has; a refusal naming the rule broken, or a
    # field naming another field's value, is the game's own judgement
    Unexpressible(
        "a record's moves follow the game's rules",
        422,
        (
            "POST /v1/adjudicate/battlebooks-royal",
            "POST /v1/adjudicate/rite-of-command",
            "POST /v1/adjudicate/strategic-titan",
            "POST /v1/adjudicate/titan-arena",
        ),
        ruled=True,
    ),
    *(
        Unexpressible(
            "Titan: The Arena's deaths, bets, scores and last play name its players and creatures",
            422,
            ("POST /v1/adjudicate/titan-arena",),
            loc=(key,),
        )
        for key in ("deaths", "bets", "scores", "last_play", "creatures")
    ),
    Unexpressible(
        "a Strategic Titan record begins with its start event, and holds no other",
        422,
        ("POST /v1/adjudicate/strategic-titan",),
        loc=("events",),
        msg="^the record begins with a start event$|^start is the first event, and only once$",
    ),
    Unexpressible(
        "a Rite of Command catalog names each card once, and a hand a weapon type it has",
        422,
        ("POST /v1/rite-of-command/deal", "POST /v1/adjudicate/rite-of-command"),
        loc=("catalog",),
        msg="is already used at|^no weapon has the type",
    ),
    Unexpressible(
        "a Rite of Command record plays the catalog's cards; its deal, the same for both players",
        422,
        ("POST /v1/adjudicate/rite-of-command",),
        msg="^unknown card|the same cards|must be the cards of each order|not the orders dealt|"
        "^the deal's first player is|^every card must be played",
    ),
    Unexpressible(
        "a Strategic Titan attack is between two players",
        422,
        ("POST /v1/adjudicate/strategic-titan",),
        loc=("events",),
        msg="^a player cannot attack himself$",
    ),
    Unexpressible(
        "a Strategic Titan event names a player of the record, one Tower for each, a creature in any case",
        422,
        ("POST /v1/adjudicate/strategic-titan",),
        loc=("events",),
        msg="is not a player of this game|^must list one starting Tower per player|^unknown creature|"
        "^must name every player exactly once$",
    ),
    # webhooks: whether a URL's host resolves, and to a public address, only the network can say
    Unexpressible(
        "an endpoint's host must resolve to public addresses",
        422,
        ("POST /v1/webhooks", "POST /v1/events/{event_id}/webhooks"),
        loc=("url",),
        msg="does not resolve|only public addresses are allowed",
    ),
    # a resource's version is its state: If-Match with another one is stale (api.md "Versions")
    Unexpressible("If-Match names a version the resource is no longer at", 412),
    # Texts: the guard refuses a NUL anywhere (a string, a key, the query, the path), and every text
    # must show a character (api.md "Errors"). Both are rules of characters across every text, the
    # free-form records' too; a pattern on each string could state the first only where no record
    # is free-form, and Python's regular expressions (which the generators read patterns with) have
    # no Unicode categories for the second.
    Unexpressible("a NUL character is refused in every text", 422, msg="a NUL character is not allowed$"),
    Unexpressible("a text must show a character", 422, msg="must contain a visible character$"),
)


def _problem(content: bytes | None) -> dict[str, Any]:
    try:
        value = json.loads(content or b"")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _reason(status: int, problem: dict[str, Any]) -> str:
    """A refusal's reason as the report groups it: the status, the problem's type and the fields it
    names (list positions as ``*``), not the values, which vary from case to case."""
    locs = sorted(
        {
            ".".join("*" if isinstance(part, int) else str(part) for part in e.get("loc", ()))
            for e in problem.get("errors") or []
            if isinstance(e, dict)
        }
    )
    return f"{status} {problem.get('type', '?')} {', '.join(locs) or '-'}"


class _Findings:
    """Counts, inside the schemathesis process, the schema-valid requests refused (what its
    ``positive_data_acceptance`` check found, case by case) and those ``UNEXPRESSIBLE`` excused;
    written as JSON when the run ends."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.rejected: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        self.excused: dict[str, Counter[str]] = defaultdict(Counter)

    def excuse(self, failure: Any, case: Any, response: Any) -> bool:
        """The ``filter_failure`` hook: False drops a refusal ``UNEXPRESSIBLE`` covers."""
        if getattr(failure, "code", None) != "ST202":
            return True
        body = getattr(case, "body", None)
        floats = frozenset(integral_floats(body)) if isinstance(body, dict | list) else frozenset()
        why = excused_by(failure.operation, response.status_code, _problem(response.content), floats)
        if not why:
            return True
        with self.lock:
            self.excused[failure.operation]["; ".join(why)] += 1
        return False

    def scenario(self, recorder: Any) -> None:
        for case_id, nodes in recorder.checks.items():
            for node in nodes:
                if node.name != "positive_data_acceptance" or node.status != "failure":
                    continue
                interaction = recorder.interactions.get(case_id)
                response = interaction.response if interaction is not None else None
                status = response.status_code if response is not None else 0
                problem = _problem(response.content if response is not None else None)
                operation = node.failure_info.failure.operation
                reason = _reason(status, problem)
                with self.lock:
                    seen = self.rejected[operation].setdefault(reason, {"cases": 0})
                    seen["cases"] += 1
                    if "message" not in seen:
                        case = recorder.cases.get(case_id)
                        body = getattr(getattr(case, "value", None), "body", None)
                        floats = (
                            frozenset(integral_floats(body)) if isinstance(body, dict | list) else frozenset()
                        )
                        errors = unexplained(operation, status, problem, floats)
                        said = "; ".join(f"{e.get('loc')}: {e.get('msg')}" for e in errors[:5])
                        seen["message"] = (
                            f"{problem.get('detail', '')} — {said}" if said else problem.get("detail", "")
                        )
                        seen["request"] = node.failure_info.code_sample[:2000]

    def write(self) -> None:
        operations = {
            operation: {"cases": sum(r["cases"] for r in reasons.values()), "reasons": reasons}
            for operation, reasons in sorted(self.rejected.items())
        }
        self.out.write_text(
            json.dumps(
                {
                    "rejected": sum(o["cases"] for o in operations.values()),
                    "operations": operations,
                    "excused": {op: dict(why) for op, why in sorted(self.excused.items())},
                },
                indent=1,
                ensure_ascii=False,
            )
        )


def install_findings(out: Path) -> None:
    """Called in the schemathesis process before its CLI runs: registers the ``filter_failure`` hook
    and the event handler of :class:`_Findings`."""
    import schemathesis
    from schemathesis.cli.commands.run.handlers.base import EventHandler
    from schemathesis.cli.ext.handlers import handler
    from schemathesis.engine import events

    findings = _Findings(out)
    schemathesis.hook("filter_failure")(
        lambda context, failure, case, response: findings.excuse(failure, case, response)
    )

    class FindingsHandler(EventHandler[Any]):
        def handle_event(self, ctx: Any, event: Any) -> None:
            if isinstance(event, events.ScenarioFinished):
                findings.scenario(event.recorder)

        def shutdown(self, ctx: Any) -> None:
            findings.write()

    handler()(FindingsHandler)


# schemathesis runs its cases on two threads, and hypothesis describes its lambdas with ast.parse; on
# CPython 3.11 the AST converter's recursion counter is shared by the interpreter's threads, so two
# parses at once can fail with "SystemError: AST constructor recursion depth mismatch" — the fuzzer's
# crash, not the server's. The CLI is started with ast.parse behind one lock, and with the findings'
# counter installed (argv[1]: the project's root, argv[2]: where the counts go).
_SERIAL_AST = """
import ast, runpy, sys, threading
_lock, _parse = threading.Lock(), ast.parse
def _serial(*args, **kwargs):
    with _lock:
        return _parse(*args, **kwargs)
ast.parse = _serial
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from tests.support.fuzz import install_findings
install_findings(Path(sys.argv[2]))
sys.argv = ["schemathesis", *sys.argv[3:]]
runpy.run_module("schemathesis.cli", run_name="__main__", alter_sys=True)
"""


def fuzz(
    backend: str,
    *,
    checks: str = "not_a_server_error",
    max_examples: int = 5,
    max_time: int | None = None,
    phases: str = "examples,coverage,fuzzing,stateful",
    seed: int = 1,
    workdir: Path | None = None,
    only: str | None = None,
) -> FuzzRun:
    """One run against a fresh database of ``backend``; the server's log counts what it answered."""
    work = workdir or Path(tempfile.mkdtemp(prefix=f"arbiter-fuzz-{backend}-"))
    work.mkdir(parents=True, exist_ok=True)
    dropped: tuple[str, str] | None = None
    if backend == "sqlite":
        url = f"sqlite+aiosqlite:///{work / 'arbiter.db'}"
    else:
        server, name, url = _postgres_database()
        dropped = (server, name)
    token = secrets.token_urlsafe(24)
    port = free_port()
    log = work / "server.log"
    rejected_json = work / "rejected.json"
    rejected_json.unlink(missing_ok=True)
    started = time.monotonic()
    try:
        migrate(url)
        environ = env(
            DATABASE_URL=url,
            ARBITER_ADMIN_TOKEN=token,
            ARBITER_LOG_FORMAT="json",
            ARBITER_HEAVY_BURST="1000000",  # the fuzzer is one client sending everything
            ARBITER_AUTH_FAILURES="1000000",  # and every unknown token the checks try
            ARBITER_SWEEP_SECONDS="5",
        )
        proc = spawn("serve", "--host", "127.0.0.1", "--port", str(port), environ=environ, log=log)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_http(f"{base}/healthz", proc)
            args = [
                sys.executable,
                "-c",
                _SERIAL_AST,
                str(ROOT),
                str(rejected_json),
                "run",
                f"{base}/openapi.json",
                "-H",
                f"Authorization: Bearer {token}",
                "--checks",
                checks,
                "--phases",
                phases,
                "--max-examples",
                str(max_examples),
                "--seed",
                str(seed),
                "--workers",
                "2",
                "--request-timeout",
                "30",
                "--suppress-health-check",
                "all",
                "--no-shrink",
                "--warnings",
                "off",
                # a live stream answers for as long as the client listens: no fuzzing case ends it
                "--exclude-path-regex",
                "/stream$",
            ]
            if max_time is not None:
                args += ["--max-time", str(max_time)]
            if only is not None:
                args += ["--include-path-regex", only]
            done = subprocess.run(
                args, cwd=work, env={**os.environ, "NO_COLOR": "1"}, capture_output=True, text=True
            )
        finally:
            try:
                stop(proc, within=30)
            except AssertionError:
                proc.kill()  # the run is judged by the log it wrote; a slow stop is no finding
                proc.wait()
    finally:
        if dropped is not None:
            from tests.support.services import admin_execute

            asyncio.run(admin_execute(dropped[0], f'DROP DATABASE IF EXISTS "{dropped[1]}" WITH (FORCE)'))
    answered = [line for line in _lines(log) if line.get("logger") == "arbiter.http" and "status" in line]
    failures = [line for line in answered if int(line["status"]) >= 500]
    found = json.loads(rejected_json.read_text()) if rejected_json.exists() else {}
    return FuzzRun(
        backend=backend,
        requests=len(answered),
        server_errors=len(failures),
        exit_code=done.returncode,
        seconds=time.monotonic() - started,
        errors_by_route=Counter(f"{line.get('method')} {line.get('route')}" for line in failures),
        output=done.stdout[-20000:] + done.stderr[-5000:],
        rejected=Counter({op: o["cases"] for op, o in found.get("operations", {}).items()}),
        excused=sum(sum(why.values()) for why in found.get("excused", {}).values()),
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backend", choices=[*BACKENDS, "both"], default="both")
    parser.add_argument("--checks", default="all")
    parser.add_argument("--max-examples", type=int, default=20)
    parser.add_argument("--max-time", type=int, default=None, help="seconds per backend")
    parser.add_argument("--phases", default="examples,coverage,fuzzing,stateful")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("fuzz-report"))
    parser.add_argument("--only", metavar="REGEX", help="the paths to fuzz (all by default)")
    opts = parser.parse_args()
    runs = []
    for backend in BACKENDS if opts.backend == "both" else (opts.backend,):
        run = fuzz(
            backend,
            checks=opts.checks,
            max_examples=opts.max_examples,
            max_time=opts.max_time,
            phases=opts.phases,
            seed=opts.seed,
            workdir=opts.out / backend,
            only=opts.only,
        )
        (opts.out / backend / "schemathesis.txt").write_text(run.output)
        runs.append(run)
        print(run.line(), flush=True)
        for operation, n in sorted(run.rejected.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {n:5d}  {operation}", flush=True)
    print(f"schemathesis' own findings: {opts.out}/<backend>/schemathesis.txt")
    print(f"schema-valid requests rejected, and why: {opts.out}/<backend>/rejected.json")
    return 1 if any(run.server_errors for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
