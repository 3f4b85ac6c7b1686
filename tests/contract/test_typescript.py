"""A front end's view of the contract: openapi-typescript (default options) generates types from the
committed openapi/openapi.json, and the README's own request bodies compile against them under
`tsc --strict` — the bad-input example must not (tests/contract/readme_bodies.py).

Runs where node and npm are available and skips, saying so, where they are not. The two npm packages
(pinned in tests/contract/typescript/package-lock.json) are installed once into .cache/contract-ts;
later runs reuse them and touch no network."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.contract.readme_bodies import readme_typescript
from tests.support.processes import ROOT

SOURCE = ROOT / "tests" / "contract" / "typescript"
CACHE = ROOT / ".cache" / "contract-ts"


def _installed() -> Path:
    """The pinned packages in the cache, installed with `npm ci` when the lock file changed."""
    lock = (SOURCE / "package-lock.json").read_bytes()
    stamp = CACHE / f".installed-{hashlib.sha256(lock).hexdigest()[:12]}"
    if not stamp.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(SOURCE / name, CACHE / name)
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=CACHE,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        for old in CACHE.glob(".installed-*"):
            old.unlink()
        stamp.touch()
    return CACHE / "node_modules" / ".bin"


def test_the_readme_bodies_compile_against_the_generated_types(tmp_path: Path) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        print("node/npm not found: the TypeScript check of the OpenAPI document is skipped")
        pytest.skip("node/npm not found: the TypeScript check of the OpenAPI document is skipped")
    bin_dir = _installed()
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    generated = subprocess.run(
        [
            str(bin_dir / "openapi-typescript"),
            str(ROOT / "openapi" / "openapi.json"),
            "-o",
            str(tmp_path / "api.d.ts"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    source, found = readme_typescript(ROOT, spec)
    assert len(found) >= 5 and any(b.bad for b in found), found  # the tour's bodies, one refused
    (tmp_path / "readme.ts").write_text(source)
    shutil.copyfile(SOURCE / "tsconfig.json", tmp_path / "tsconfig.json")
    checked = subprocess.run(
        [str(bin_dir / "tsc"), "--strict", "-p", str(tmp_path / "tsconfig.json")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    print(f"tsc --strict: {len(found)} README bodies, exit {checked.returncode}")
    assert checked.returncode == 0, checked.stdout + checked.stderr + source
