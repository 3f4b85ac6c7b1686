"""The project explains itself from a clone: every document the code, the README and the docs cite
is in the repository, and every section a citation quotes (formats.md "Round robin, N seats") is a
heading of that document.

A citation is a ``*.md`` name or path, optionally followed by quoted section names joined by
commas, "and" or "/" (``formats.md "Words", "Stages"``). A bare name (``formats.md``) resolves
against ``docs/`` and then the repository root; a path (``docs/formats.md``) against the root. The
code, the tests, the README and the docs are scanned; a name that closes a string literal
(``"README.md"``) names a file and is checked without sections.
Pure Python (pathlib, re), no database.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SCANNED = ("app", "workers", "docs", "tests", "README.md")
# This file's own examples (documents and sections made up to show the check failing) are not citations.
EXAMPLES = ("tests/test_docs.py",)
TEXT_SUFFIXES = {".py", ".md", ".txt", ".json", ".toml", ".cfg", ".ini", ".yaml", ".yml"}

# Citations known to point at no document of the repository, each with the reason it is tolerated.
# Keyed by (citing file, cited document), so the same citation anywhere else still fails.
KNOWN_MISSING: dict[tuple[str, str], str] = {}

QUOTED = r'"[^"\n]{1,120}(?:\n[^"\n]{1,120})?"'
CITATION = re.compile(
    r"(?<![\w./-])(?P<doc>(?:[\w-]+/)*[\w.-]*\w\.md)(?![\w/])"
    # a name that closes a string literal (``ROOT / "README.md"``) names a file: nothing quoted after it
    # is a section of it
    r"(?P<sections>(?:(?![\"'])(?:\s*(?:,|\band\b|/)?\s*" + QUOTED + r")+)?)"
)
SECTION = re.compile(QUOTED)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(?P<text>.*?)\s*#*\s*$")


@dataclass(frozen=True)
class Citation:
    where: str  # "path:line" of the citing text
    doc: str
    sections: tuple[str, ...]


@dataclass(frozen=True)
class Finding:
    kind: str  # "document" (not in the repository) or "section" (no such heading)
    citation: Citation
    section: str | None = None

    def __str__(self) -> str:
        c = self.citation
        if self.kind == "document":
            return f"{c.where}: {c.doc} is not in the repository"
        return f'{c.where}: {c.doc} has no heading "{self.section}"'


def _plain(text: str) -> str:
    """Heading or section text compared without Markdown marks, case or extra whitespace."""
    return " ".join(re.sub(r"[`*_]", "", text).split()).casefold()


def citations(text: str, source: str) -> list[Citation]:
    """Every citation of a ``*.md`` document in ``text`` (``source`` names the file)."""
    out = []
    for m in CITATION.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        sections = tuple(" ".join(s[1:-1].split()) for s in SECTION.findall(m.group("sections")))
        out.append(Citation(f"{source}:{line}", m.group("doc"), sections))
    return out


def resolve(doc: str, root: Path = ROOT) -> Path | None:
    """The cited document's file: a path against the root, a bare name against docs/ then the root."""
    bases = [root] if "/" in doc else [root / "docs", root]
    return next((base / doc for base in bases if (base / doc).is_file()), None)


def headings(markdown: str) -> list[str]:
    """The text of every ATX heading outside fenced code blocks."""
    out: list[str] = []
    fence: str | None = None
    for line in markdown.splitlines():
        mark = line.lstrip()[:3]
        if mark in ("```", "~~~"):
            fence = mark if fence is None else (None if mark == fence else fence)
            continue
        if fence is None and (m := HEADING.match(line)):
            out.append(_plain(m.group("text")))
    return out


def has_heading(heads: list[str], section: str) -> bool:
    """A heading that is, or contains as whole words, the section's text."""
    wanted = re.compile(r"(?<!\w)" + re.escape(_plain(section)) + r"(?!\w)")
    return any(wanted.search(h) for h in heads)


def check_text(
    text: str, source: str, root: Path = ROOT, known_missing: dict[tuple[str, str], str] | None = None
) -> list[Finding]:
    """Every citation in ``text`` (the file ``source``, relative to ``root``) whose document is
    missing, or whose quoted section is no heading of it."""
    known = KNOWN_MISSING if known_missing is None else known_missing
    findings: list[Finding] = []
    for c in citations(text, source):
        path = resolve(c.doc, root)
        if path is None:
            if (source, c.doc) not in known:
                findings.append(Finding("document", c))
            continue
        if c.sections:
            heads = headings(path.read_text(encoding="utf-8"))
            findings += [Finding("section", c, s) for s in c.sections if not has_heading(heads, s)]
    return findings


def scanned_files(root: Path = ROOT) -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        p = root / name
        if p.is_file():
            files.append(p)
        elif p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in TEXT_SUFFIXES)
    return [f for f in files if f.relative_to(root).as_posix() not in EXAMPLES]


def check_repository(root: Path = ROOT) -> list[Finding]:
    findings: list[Finding] = []
    for f in scanned_files(root):
        findings += check_text(f.read_text(encoding="utf-8"), f.relative_to(root).as_posix(), root)
    return findings


# --------------------------------------------------------------------------- the tests


def test_every_cited_document_is_in_the_repository() -> None:
    missing = [str(f) for f in check_repository() if f.kind == "document"]
    assert missing == [], "cited documents missing:\n" + "\n".join(missing)


def test_every_quoted_section_is_a_heading_of_its_document() -> None:
    missing = [str(f) for f in check_repository() if f.kind == "section"]
    assert missing == [], "quoted sections missing:\n" + "\n".join(missing)


def test_the_check_finds_citations_in_code_and_docs() -> None:
    every = [c for f in scanned_files() for c in citations(f.read_text("utf-8"), f.name)]
    found = {(c.doc, c.sections) for c in every}
    assert ("formats.md", ("Round robin, N seats",)) in found  # app/core/pairing/designs.py
    assert ("bga-round-robin.md", ("10 or fewer", "11 or more", "Final")) in found  # app/core/games/bga.py
    assert ("formats.md", ("Single elimination", "Free-for-all")) in found  # across a line break
    assert ("docs/formats.md", ()) in found  # a path (README.md), resolved against the root
    assert len(every) > 100
    cited_in_tests = {
        c.doc
        for f in scanned_files()
        if f.relative_to(ROOT).parts[0] == "tests"
        for c in citations(f.read_text("utf-8"), f.name)
    }
    assert "rite-of-command.md" in cited_in_tests  # tests/core/test_rite_of_command.py


def test_the_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "formats.md").write_text("# Engine\n\n## Words\n\n```\n# Not a heading\n```\n")
    text = (
        'See formats.md "Words" and missing-page.md; also docs/formats.md "Round robin,\n'
        'N seats", "Not a heading" and README.md.\n'
    )
    findings = check_text(text, "synthetic.py", root=tmp_path, known_missing={})
    assert [str(f) for f in findings] == [
        "synthetic.py:1: missing-page.md is not in the repository",
        'synthetic.py:1: docs/formats.md has no heading "Round robin, N seats"',
        'synthetic.py:1: docs/formats.md has no heading "Not a heading"',
        "synthetic.py:2: README.md is not in the repository",
    ]
    # A name closing a string literal names a file: what is quoted after it is no section, but the
    # file must still be there.
    literal = 'path = ROOT / "formats.md").read_text(), x["key"]\nROOT / "gone.md", "x"'
    assert [str(f) for f in check_text(literal, "lit.py", root=tmp_path, known_missing={})] == [
        "lit.py:2: gone.md is not in the repository"
    ]
    # A tolerated citation is tolerated only where it is listed.
    known = {("app/core/rng.py", "DESIGN.md"): "an example"}
    assert check_text("DESIGN.md", "app/core/rng.py", known_missing=known) == []
    assert [f.kind for f in check_text("DESIGN.md", "app/main.py", known_missing=known)] == ["document"]


# --------------------------------------------------------------------------- "Adding a format / a game"
# docs/architecture.md lists, for a format and for a game, what the one declaration holds and where
# each part is read. Each row is checked against the code: the declared attribute is one the format
# or game declares, each named file exists, each named symbol is defined in it, and each symbol
# reads the declaration — it uses the attribute, or a symbol named before it in the same row (or a
# constant such a symbol uses: the key it hands the value on under).
ARCH = DOCS / "architecture.md"
WHERE = re.compile(r"`(?P<path>app/[\w/.]+\.(?:py|html))`(?:\s*`(?P<symbol>[\w.]+)`)?")


def section_rows(markdown: str, heading: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    """The rows of the table under ``## heading``: (declared attribute, [(path, symbol)])."""
    body = markdown.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            where = [(m.group("path"), m.group("symbol")) for m in WHERE.finditer(cells[2])]
            rows.append((cells[0].strip("`"), where))
    return rows


def _defined(tree: ast.Module, symbol: str) -> ast.AST | None:
    """The node defining ``symbol`` (a function, a class, ``Class.method``, an assigned name)."""
    scope: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for part in symbol.split("."):
        node = None
        for stmt in scope:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and stmt.name == part:
                node = stmt
            elif isinstance(stmt, ast.Assign | ast.AnnAssign):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
                if part in names:
                    node = stmt
        if node is None:
            return None
        scope = node.body if isinstance(node, ast.ClassDef) else []
    return node


def _reads(node: ast.AST, names: set[str]) -> bool:
    """Whether the code of ``node`` uses one of ``names`` (an attribute, a name, its own name)."""
    own = {node.name} if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else set()
    used = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    used |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    return bool((used | own) & names)


def declaration_problems(
    rows: list[tuple[str, list[tuple[str, str | None]]]], declared: set[str], root: Path = ROOT
) -> list[str]:
    problems = []
    for attribute, where in rows:
        if attribute not in declared:
            problems.append(f"{attribute}: not declared")
        if not where:
            problems.append(f"{attribute}: names no place that reads it")
        read = {attribute}
        for path, symbol in where:
            file = root / path
            if not file.is_file():
                problems.append(f"{attribute}: {path} does not exist")
                continue
            text = file.read_text(encoding="utf-8")
            if symbol is None:
                if f".{attribute}" not in text:
                    problems.append(f"{attribute}: {path} does not read it")
                continue
            node = _defined(ast.parse(text), symbol)
            if node is None:
                problems.append(f"{attribute}: {path} defines no {symbol}")
            elif not _reads(node, read):
                problems.append(
                    f"{attribute}: {path} {symbol} reads neither it nor {sorted(read - {attribute})}"
                )
            read.add(symbol.rsplit(".", 1)[-1])
            if node is not None:  # and the constants it hands on (a session's info key, say)
                read |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id.isupper()}
    return problems


def test_adding_a_format_lists_what_each_format_declares_and_where_it_is_read() -> None:
    from app.services.formats.base import DECLARED, StageFormat

    rows = section_rows(ARCH.read_text(encoding="utf-8"), "Adding a format")
    assert {a for a, _ in rows} >= set(DECLARED)  # every declaration is listed
    assert callable(StageFormat.next_tables)
    assert declaration_problems(rows, {*DECLARED, "next_tables"}) == []


def test_adding_a_game_lists_what_each_game_declares_and_where_it_is_read() -> None:
    import dataclasses

    from app.core.games.registry import Game

    declared = {f.name for f in dataclasses.fields(Game)} | {"verdict_member"}
    rows = section_rows(ARCH.read_text(encoding="utf-8"), "Adding a game")
    assert {a for a, _ in rows} == declared - {"name"}  # every part of a game but its name is listed
    assert declaration_problems(rows, declared) == []


def test_the_tables_kept_by_hand_are_gone() -> None:
    """What the declarations replaced is defined nowhere in app/ any more."""
    gone = {"DEFAULT_CHAINS", "TRF_FORMATS", "ELIMINATION", "_MEMBERS_BY_HAND"}
    defined = {
        n.id
        for f in (ROOT / "app").rglob("*.py")
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assign)
        for t in node.targets
        for n in ast.walk(t)
        if isinstance(n, ast.Name)
    }
    assert defined & gone == set()


def test_the_declaration_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "x.py").write_text(
        "TABLE = {f.name: f.tiebreaks for f in FORMATS}\n"
        "def reads_table():\n    return TABLE\n"
        "def reads_nothing():\n    return 1\n"
    )
    rows = [
        ("tiebreaks", [("app/x.py", "TABLE"), ("app/x.py", "reads_table")]),
        ("display", [("app/x.py", "reads_nothing"), ("app/x.py", "missing"), ("app/y.py", "TABLE")]),
        ("colour", []),
    ]
    assert declaration_problems(rows, {"tiebreaks", "display"}, root=tmp_path) == [
        "display: app/x.py reads_nothing reads neither it nor []",
        "display: app/x.py defines no missing",
        "display: app/y.py does not exist",
        "colour: not declared",
        "colour: names no place that reads it",
    ]


# --------------------------------------------------------------------------- the schema's revisions


def test_the_revisions_the_docs_show_are_this_versions_head() -> None:
    """Where the docs show what ``arbiter migrate`` prints and how a schema behind or ahead is
    refused, the revisions are the real head's (and the ones beside it)."""
    from app.cli import head_revision

    head = int(head_revision())
    shown: list[tuple[str, int, int]] = []
    for path in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]:
        text = path.read_text()
        for pattern, step in (
            (r"at revision (\d{4}) \(head (\d{4})\)", 0),
            (r"at revision (\d{4}), this version needs (\d{4})", -1),
            (r"at revision (\d{4}), which this version \((\d{4})\)", 1),
        ):
            for m in re.finditer(pattern, text):
                shown.append((path.name, int(m.group(1)) - step, int(m.group(2))))
    assert len(shown) >= 3, "docs/operations.md shows migrate's line and both refusals"
    assert [s for s in shown if s[1:] != (head, head)] == [], f"the head is {head:04d}"
