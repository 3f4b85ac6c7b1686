"""The request bodies of the README's curl commands, as TypeScript checked against the generated
types (tests/contract/test_typescript.py).

A body is a ``-d '…'`` literal (JSON, maybe over several lines) of a ``curl … -X METHOD $H/path``
command; the path's ``$VARIABLE`` segments match the document's ``{parameters}``. A body the README
shows as bad input (the comment line above says so) must *fail* to compile: it is written under
``// @ts-expect-error``, so the types are shown to refuse what the server refuses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMMAND = re.compile(
    r"curl [^\n]*?-X (?P<method>POST|PUT|PATCH) \$H(?P<path>/v1/[^\s\"']+)(?P<rest>(?:[^\n]*\\\n)*[^\n]*?)"
    r"-d (?:'(?P<body>[^']*)'|\"(?P<quoted>(?:[^\"\\]|\\.)*)\")",
)
VARIABLE = re.compile(r"\$\{?(\w+)\}?")


def _json(m: re.Match[str]) -> Any:
    if m["body"] is not None:
        return json.loads(m["body"])
    # a double-quoted body: unescape it; a shell variable inside a JSON string reads as its name
    text = re.sub(r"\\(.)", r"\1", m["quoted"])
    if not text.startswith(("{", "[")):
        return None  # the whole body is a variable ("$BODY"): built by the script, not shown
    return json.loads(VARIABLE.sub(lambda v: v[1], text))


@dataclass(frozen=True)
class Body:
    line: int
    method: str
    template: str
    body: Any
    bad: bool


def _template(path: str, templates: list[str]) -> str:
    parts = path.strip("/").split("/")
    for t in templates:
        tparts = t.strip("/").split("/")
        if len(tparts) == len(parts) and all(
            p == q or (p.startswith("$") and q.startswith("{")) for p, q in zip(parts, tparts, strict=True)
        ):
            return t
    raise AssertionError(f"README path {path} is no operation of the document")


def bodies(readme: str, templates: list[str]) -> list[Body]:
    out = []
    lines = readme.splitlines()
    for m in COMMAND.finditer(readme):
        body = _json(m)
        if body is None:
            continue
        line = readme.count("\n", 0, m.start()) + 1
        before = lines[line - 2] if line >= 2 else ""
        out.append(
            Body(
                line=line,
                method=m["method"].lower(),
                template=_template(m["path"], templates),
                body=body,
                bad="bad input" in before.lower(),
            )
        )
    return out


PRELUDE = """import type { paths } from "./api";

type JsonBody<Op> = Op extends { requestBody?: infer R }
  ? NonNullable<R> extends { content: { "application/json": infer B } }
    ? B
    : never
  : never;
"""


def typescript(found: list[Body]) -> str:
    out = [PRELUDE]
    for i, b in enumerate(found):
        out.append(f"// README.md line {b.line}: {b.method.upper()} {b.template}")
        if b.bad:
            out.append("// @ts-expect-error the README shows it refused")
        out.append(
            f'export const body{i}: JsonBody<paths["{b.template}"]["{b.method}"]> = {json.dumps(b.body)};'
        )
    return "\n".join(out) + "\n"


def scripted(readme: str) -> list[Body]:
    """The bodies the README's tour builds in a script rather than shows: ``report_round``'s result,
    one seat a place (``{"entry_id": …, "place": i + 1}``), as a client would write it."""
    at = readme.find("report_round() {")
    assert at >= 0 and '{"entry_id": s["entry_id"], "place": i + 1}' in readme[at : at + 600], (
        "the tour's report_round no longer builds {entry_id, place} seats: update tests/contract/readme_bodies.py"
    )
    result = {"seats": [{"entry_id": "e-1", "place": 1}, {"entry_id": "e-2", "place": 2}]}
    return [Body(readme.count("\n", 0, at) + 1, "post", "/v1/matches/{match_id}/result", result, bad=False)]


def readme_typescript(root: Path, spec: dict[str, Any]) -> tuple[str, list[Body]]:
    readme = (root / "README.md").read_text()
    found = bodies(readme, list(spec["paths"])) + scripted(readme)
    return typescript(found), found
