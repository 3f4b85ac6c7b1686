"""Promises about the code's shape (docs/architecture.md "Tests"): no module of the app is over
800 lines and no function over a cyclomatic complexity of 40 (radon's measure), so that a newcomer
can read any one of them whole."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 800
MAX_COMPLEXITY = 40


def too_complex(source: str, name: str) -> list[str]:
    return [
        f"{name}:{block.lineno} {block.fullname} ({block.complexity})"
        for block in cc_visit(source)
        if block.complexity > MAX_COMPLEXITY
    ]


def test_no_module_of_the_app_is_over_800_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in (ROOT / "app").rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


def test_no_function_of_the_app_is_over_complexity_40() -> None:
    found = [
        f
        for p in sorted((ROOT / "app").rglob("*.py"))
        for f in too_complex(p.read_text(), str(p.relative_to(ROOT)))
    ]
    assert found == []
    # and the measure sees a function that branches too much
    branchy = (
        "def f(x):\n"
        + "".join(f"    if x == {i}:\n        return {i}\n" for i in range(41))
        + "    return -1\n"
    )
    assert too_complex(branchy, "x.py") == ["x.py:1 f (42)"]
