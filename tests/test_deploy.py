"""The files a deployment is made of, checked where no container engine runs: the Dockerfile (built
in stages from the lock file, installed not editable, run as a user, with a health check), its
.dockerignore, the lock file against pyproject.toml, and docker-compose.yml parsed and
cross-checked — services, dependencies, volumes, commands, ports, secrets, shutdown times — the way
``docker compose config`` would, and more. Pure Python, no database."""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from app.cli import build_parser
from app.settings import SECRETS, Settings
from app.version import __version__

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


# --------------------------------------------------------------------------- Dockerfile


@dataclass
class Stage:
    base: str
    name: str | None
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for k, args in self.instructions if k == keyword]


def dockerfile(text: str) -> list[Stage]:
    """The stages of a Dockerfile: each FROM and the instructions under it (continuations joined,
    comments dropped)."""
    logical: list[str] = []
    buf = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buf and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            buf += line[:-1] + " "
            continue
        logical.append(buf + line)
        buf = ""
    stages: list[Stage] = []
    for line in logical:
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            parts = args.split()
            name = parts[2] if len(parts) >= 3 and parts[1].upper() == "AS" else None
            stages.append(Stage(parts[0], name))
        else:
            assert stages, f"{keyword} before any FROM"
            stages[-1].instructions.append((keyword, args.strip()))
    return stages


def commands(run: str) -> list[list[str]]:
    """The shell commands of a RUN line, split at && and ;."""
    return [shlex.split(part) for part in re.split(r"&&|;", run) if part.strip()]


def test_the_image_is_built_in_stages_from_the_lock_file() -> None:
    stages = dockerfile((ROOT / "Dockerfile").read_text())
    assert len(stages) >= 2, "a multi-stage build"
    build, final = stages[0], stages[-1]
    assert build.name and all(s.base.startswith("python:3.11") for s in stages)
    pips = [
        cmd for s in stages for run in s.all("RUN") for cmd in commands(run) if "pip" in " ".join(cmd[:2])
    ]
    installs = [cmd for cmd in pips if "install" in cmd]
    assert installs, "pip installs something"
    for cmd in installs:
        assert not {"-e", "--editable"} & set(cmd), f"an editable install: {cmd}"
    locked = [cmd for cmd in installs if "requirements.lock" in cmd]
    assert len(locked) == 1 and "--require-hashes" in locked[0] and "--no-deps" in locked[0]
    assert {"-r", "--requirement"} & set(locked[0])
    # Arbiter itself goes in after the lock, without pulling anything the lock did not pin
    rest = [cmd for cmd in installs if cmd is not locked[0]]
    assert rest and all("--no-deps" in cmd for cmd in rest) and any("." in cmd for cmd in rest)
    assert installs.index(locked[0]) < installs.index(rest[0])
    copied = " ".join(build.all("COPY"))
    assert "requirements.lock" in copied
    # the image that runs has no build tools, only the built environment
    assert any(c.startswith("--from=") for c in final.all("COPY"))
    assert not [cmd for run in final.all("RUN") for cmd in commands(run) if "pip" in cmd[0]]


def test_the_image_runs_as_a_user_with_a_health_check() -> None:
    final = dockerfile((ROOT / "Dockerfile").read_text())[-1]
    users = final.all("USER")
    assert users, "USER in the final stage"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users
    (check,) = final.all("HEALTHCHECK")
    exec_form = check[check.index("CMD") + 3 :].strip()
    argv = yaml.safe_load(exec_form)
    assert argv[0] == "arbiter" and build_parser().parse_args(argv[1:]).cmd == "healthcheck"
    (cmd,) = final.all("CMD")
    argv = yaml.safe_load(cmd)
    assert argv[0] == "arbiter" and build_parser().parse_args(argv[1:]).cmd == "serve"
    env = " ".join(final.all("ENV"))
    assert "ARBITER_MIGRATIONS_DIR=" in env and any("migrations" in c for c in final.all("COPY"))


def test_the_dockerfile_checks_can_fail() -> None:
    bad = dockerfile("FROM python:3.11-slim\nRUN pip install -e .\nUSER root\n")
    assert len(bad) == 1 and bad[0].all("USER") == ["root"]
    assert commands(bad[0].all("RUN")[0]) == [["pip", "install", "-e", "."]]


def test_the_build_context_leaves_out_what_it_must_not_carry() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for entry in (".venv", ".git", "*.db", "arbiter.db*", ".env", "secrets", "**/__pycache__", ".test-env"):
        assert entry in ignored, entry
    for needed in (
        "app",
        "workers",
        "migrations",
        "requirements.lock",
        "pyproject.toml",
        "README.md",
        "LICENSE",
    ):
        assert needed not in ignored and (ROOT / needed).exists(), needed


# --------------------------------------------------------------------------- the lock file


def locked() -> dict[str, tuple[Version, list[str]]]:
    """name → (pinned version, its hashes), from requirements.lock."""
    text = (ROOT / "requirements.lock").read_text()
    out: dict[str, tuple[Version, list[str]]] = {}
    for block in re.split(r"\n(?=\S)", text):
        m = re.match(r"([A-Za-z0-9_.\-]+)==(\S+)", block)
        if m:
            out[canonicalize_name(m.group(1))] = (
                Version(m.group(2)),
                re.findall(r"--hash=sha256:([0-9a-f]{64})", block),
            )
    return out


def test_the_lock_pins_every_dependency_with_its_hashes() -> None:
    lock = locked()
    wanted = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    wanted += [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]
    for req in wanted:
        name = canonicalize_name(req.name)
        assert name in lock, f"{req} is not in requirements.lock: run `make lock`"
        assert lock[name][0] in req.specifier, f"the lock's {name} {lock[name][0]} does not satisfy {req}"
    assert "greenlet" in lock  # sqlalchemy[asyncio]'s extra is locked too
    for name, (_, hashes) in lock.items():
        assert hashes, f"{name} has no hash"
    dev = {
        canonicalize_name(Requirement(r).name) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]
    }
    assert not (dev - {"packaging"}) & set(lock), "the image's lock holds no development tool"


# --------------------------------------------------------------------------- project hygiene


def test_the_license_the_version_and_the_changelog() -> None:
    assert PYPROJECT["project"]["license"] == "MIT" and PYPROJECT["project"]["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "app.version.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## {re.escape(__version__)}\b", changelog, re.M), "CHANGELOG.md names this version"


# --------------------------------------------------------------------------- docker-compose.yml

VARIABLE = re.compile(r"\$\{(?P<name>[A-Z0-9_]+)(?:(?P<op>:?[-?])(?P<rest>[^}]*))?\}")
DURATION = re.compile(r"^(?:(?P<m>\d+)m)?(?:(?P<s>\d+)s)?$")
CONDITIONS = {"service_started", "service_healthy", "service_completed_successfully"}
TOP_LEVEL = {"name", "services", "volumes", "networks", "secrets", "configs", "include"}
SERVICE_KEYS = {
    "image", "build", "command", "entrypoint", "environment", "env_file", "ports", "expose", "volumes",
    "depends_on", "healthcheck", "restart", "stop_grace_period", "stop_signal", "deploy", "networks",
    "labels", "user", "working_dir", "secrets", "configs", "logging", "profiles", "pull_policy",
}  # fmt: skip


def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def interpolate(value: str) -> str:
    """A value as docker compose would render it with nothing set beyond its defaults."""
    return VARIABLE.sub(lambda m: m.group("rest") if m.group("op") in (":-", "-") else "<set>", value)


def seconds(duration: str) -> int:
    m = DURATION.match(duration)
    assert m and duration, f"not a duration: {duration!r}"
    return int(m.group("m") or 0) * 60 + int(m.group("s") or 0)


def problems(doc: dict[str, Any]) -> list[str]:
    """What ``docker compose config`` would refuse, and the cross-references it does not check."""
    out: list[str] = []
    for key in doc:
        if key not in TOP_LEVEL and not key.startswith("x-"):
            out.append(f"unknown top-level key {key}")
    services: dict[str, Any] = doc.get("services") or {}
    volumes = set((doc.get("volumes") or {}).keys())
    used_volumes: set[str] = set()
    for name, svc in services.items():
        for key in svc:
            if key not in SERVICE_KEYS and not key.startswith("x-"):
                out.append(f"{name}: unknown key {key}")
        if "image" not in svc and "build" not in svc:
            out.append(f"{name}: neither image nor build")
        deps = svc.get("depends_on") or {}
        for dep, spec in deps.items() if isinstance(deps, dict) else ((d, {}) for d in deps):
            if dep not in services:
                out.append(f"{name}: depends on unknown service {dep}")
                continue
            cond = (spec or {}).get("condition", "service_started")
            if cond not in CONDITIONS:
                out.append(f"{name}: unknown condition {cond}")
            if cond == "service_healthy" and not (services[dep].get("healthcheck") or {}).get("test"):
                out.append(f"{name}: waits for {dep} to be healthy, which has no health check")
        for mount in svc.get("volumes") or []:
            source = str(mount).split(":")[0]
            if not source.startswith((".", "/", "~")):
                used_volumes.add(source)
                if source not in volumes:
                    out.append(f"{name}: volume {source} is not declared")
        env = svc.get("environment") or {}
        if not isinstance(env, dict):
            out.append(f"{name}: environment is not a mapping")
        if "stop_grace_period" in svc:
            seconds(svc["stop_grace_period"])
    for v in volumes - used_volumes:
        out.append(f"volume {v} is declared and never used")
    return out


def test_the_compose_file_is_well_formed() -> None:
    doc = compose()
    assert problems(doc) == []
    assert set(doc["services"]) == {"postgres", "redis", "migrate", "api", "worker"}


def test_the_compose_checks_can_fail() -> None:
    doc = {
        "servics": {},
        "services": {
            "api": {
                "image": "x",
                "depends_on": {"db": {"condition": "service_healthy"}},
                "volumes": ["data:/d"],
            },
            "worker": {
                "command": ["x"],
                "depends_on": {"api": {"condition": "when_ready"}},
                "restrt": "always",
            },
        },
        "volumes": {"other": None},
    }
    assert sorted(problems(doc)) == sorted(
        [
            "unknown top-level key servics",
            "api: depends on unknown service db",
            "api: volume data is not declared",
            "worker: unknown key restrt",
            "worker: neither image nor build",
            "worker: unknown condition when_ready",
            "volume other is declared and never used",
        ]
    )


def test_one_image_runs_migrate_the_api_and_the_workers() -> None:
    services = compose()["services"]
    roles = {"migrate": "migrate", "api": "serve", "worker": "worker"}
    images = {services[s]["image"] for s in roles}
    builds = {str(services[s]["build"]) for s in roles}
    assert len(images) == 1 and builds == {"."} and (ROOT / "Dockerfile").is_file()
    for name, cmd in roles.items():
        argv = [interpolate(a) for a in services[name]["command"]]
        assert argv[0] == "arbiter"
        assert build_parser().parse_args(argv[1:]).cmd == cmd, argv
    # the workers scale: nothing pins one container
    assert "container_name" not in services["worker"] and "ports" not in services["worker"]
    assert build_parser().parse_args([interpolate(a) for a in services["api"]["command"][1:]]).workers >= 1


def test_services_restart_wait_for_each_other_and_stop_in_time() -> None:
    services = compose()["services"]
    assert services["migrate"]["restart"] == "no"
    for name in ("postgres", "redis", "api", "worker"):
        assert services[name]["restart"] == "unless-stopped", name
    for name in ("api", "worker"):
        deps = services[name]["depends_on"]
        assert deps["migrate"]["condition"] == "service_completed_successfully"
        assert deps["redis"]["condition"] == "service_healthy"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    # a stopping worker lets its jobs finish for ARBITER_WORKER_SHUTDOWN_WAIT, then hands them back:
    # Docker must not kill it before
    worker = services["worker"]
    wait = int(
        worker["environment"].get("ARBITER_WORKER_SHUTDOWN_WAIT", Settings().arbiter_worker_shutdown_wait)
    )
    assert seconds(worker["stop_grace_period"]) >= wait + 10
    # this worker's own heartbeat: not the image's API check, nor arq's check of the whole queue
    check = worker["healthcheck"]["test"]
    assert check[:2] == ["CMD", "arbiter"], check
    args = build_parser().parse_args(check[2:])
    assert args.cmd == "worker" and args.check
    beat = float(worker["environment"]["ARBITER_WORKER_HEARTBEAT_SECONDS"])
    assert seconds(worker["healthcheck"]["interval"]) >= beat  # a beat comes between two checks


def test_the_api_is_published_on_this_machine_only() -> None:
    services = compose()["services"]
    for name, svc in services.items():
        for port in svc.get("ports") or []:
            assert interpolate(str(port)).startswith("127.0.0.1:"), (
                f"{name} publishes {port} to every interface"
            )
    assert services["api"]["ports"], "the API is reachable from the machine"


SECRET_NAME = re.compile(r"PASSWORD|TOKEN|SECRET")


def secret_problems(doc: dict[str, Any]) -> list[str]:
    """Where the compose file would put a secret in the environment instead of a file: a secret
    variable written out or taken from .env, a ``…_FILE`` naming no secret the service mounts or no
    setting of Arbiter, a secret file outside ./secrets."""
    out: list[str] = []
    declared = doc.get("secrets") or {}
    for name, spec in declared.items():
        if not str((spec or {}).get("file", "")).startswith("./secrets/"):
            out.append(f"secret {name} is not a file of ./secrets")
    file_settings = {f"{s.upper()}_FILE" for s in SECRETS} | {"POSTGRES_PASSWORD_FILE"}
    for svc_name, svc in (doc.get("services") or {}).items():
        mounted = set(svc.get("secrets") or [])
        for name in mounted - set(declared):
            out.append(f"{svc_name}: secret {name} is not declared")
        for key, value in (svc.get("environment") or {}).items():
            text = "" if value is None else str(value)
            if key.endswith("_FILE"):
                if key not in file_settings:
                    out.append(f"{svc_name}: {key} is no secret setting")
                where = text.removeprefix("/run/secrets/")
                if where == text or where not in mounted:
                    out.append(f"{svc_name}: {key} names {text}, no secret it mounts")
            elif SECRET_NAME.search(key) and text and interpolate(text) != "":
                out.append(f"{svc_name}: {key} is in the environment")
    return out


def test_secrets_are_files_each_service_mounting_only_its_own() -> None:
    doc = compose()
    assert secret_problems(doc) == []
    services = doc["services"]
    assert set(doc["secrets"]) == {"postgres_password", "admin_token", "secret_key"}
    assert services["postgres"]["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/postgres_password"
    assert set(services["api"]["secrets"]) == {"postgres_password", "admin_token", "secret_key"}
    assert services["api"]["environment"]["ARBITER_ADMIN_TOKEN_FILE"] == "/run/secrets/admin_token"
    # the workers sign webhook deliveries (the secret key) and act as nobody (no admin token)
    assert set(services["worker"]["secrets"]) == {"postgres_password", "secret_key"}
    # the one-shot migrate owns the schema: the database and nothing else
    assert services["migrate"]["secrets"] == ["postgres_password"]
    assert set(services["migrate"]["environment"]) == {
        "DATABASE_URL", "DATABASE_PASSWORD_FILE", "ARBITER_LOG_FORMAT"
    }  # fmt: skip
    for name in ("migrate", "api", "worker"):
        url = services[name]["environment"]["DATABASE_URL"]
        assert ":" not in url.split("://", 1)[1].split("@", 1)[0], f"{name}: a password in DATABASE_URL"
        assert Settings(database_url=url).database_url.startswith("postgresql+asyncpg://")
    text = (ROOT / "docker-compose.yml").read_text()
    assert "${POSTGRES_PASSWORD" not in text and "${ARBITER_ADMIN_TOKEN" not in text
    assert "${ARBITER_SECRET_KEY" not in text


def test_the_secret_checks_can_fail() -> None:
    doc = {
        "secrets": {"token": {"file": "/etc/token"}},
        "services": {
            "api": {
                "secrets": ["token", "key"],
                "environment": {
                    "ARBITER_ADMIN_TOKEN": "${ARBITER_ADMIN_TOKEN:?set it}",
                    "ARBITER_SECRET_KEY_FILE": "/run/secrets/key",
                    "ARBITER_CORS_ORIGINS_FILE": "/run/secrets/token",
                    "DATABASE_PASSWORD_FILE": "/etc/pw",
                    "ARBITER_METRICS_TOKEN": "${ARBITER_METRICS_TOKEN:-}",
                },
            }
        },
    }
    assert sorted(secret_problems(doc)) == sorted(
        [
            "secret token is not a file of ./secrets",
            "api: secret key is not declared",
            "api: ARBITER_ADMIN_TOKEN is in the environment",
            "api: ARBITER_CORS_ORIGINS_FILE is no secret setting",
            "api: DATABASE_PASSWORD_FILE names /etc/pw, no secret it mounts",
        ]
    )


def test_every_variable_is_documented_and_every_setting_is_real() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    example = (ROOT / ".env.example").read_text()
    documented = set(re.findall(r"^([A-Z0-9_]+)=", example, re.M))
    used = {m.group("name") for m in VARIABLE.finditer(text)}
    assert used == documented, (
        f"used, not in .env.example: {used - documented}; documented, unused: {documented - used}"
    )
    known = {name.upper() for name in Settings.model_fields} | {f"{s.upper()}_FILE" for s in SECRETS}
    services = compose()["services"]
    for name in ("migrate", "api", "worker"):
        for key in services[name]["environment"]:
            assert key in known, f"{name}: {key} is no setting of Arbiter"


@pytest.mark.parametrize("service", ["api", "worker", "migrate"])
def test_the_application_services_share_one_environment(service: str) -> None:
    services = compose()["services"]
    base = services["migrate"]["environment"]
    env = services[service]["environment"]
    assert {k: v for k, v in env.items() if k in base} == base
