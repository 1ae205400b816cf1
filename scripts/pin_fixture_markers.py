"""Pin the column and a message fragment into every bare ``# expect: TENnnn`` fixture marker.

    python scripts/pin_fixture_markers.py            # rewrite fixtures/TENnnn.py and their goldens
    python scripts/pin_fixture_markers.py --check    # only list the markers it would pin

A bare marker item (``TEN203``) becomes ``TEN203@14 "fragment"`` from what the linter reports on
that line: the column as flake8 prints it, and the first clause of the message that names
something from the flagged code. Items already pinned are kept as written (a wrong pin must fail
the tests, not be overwritten). A line whose bare codes differ from the codes reported there is
left alone and listed: that is a miss or a false alarm to look at, not a pin to write.

The golden ``TENnnn.fixed.py`` carries the markers through the fix; it is rewritten by the fixer
from the new fixture, and the script stops if anything but marker comments would change.
Check the diff by eye: the column should point at the alias-making (or flagged) expression.
"""

import argparse
import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import FIXTURES, MARKER, marker_items, rule_fixtures  # noqa: E402
from flake8_tensorcopy.engine import lint_source  # noqa: E402
from flake8_tensorcopy.fixer import fix_source  # noqa: E402

WORD = re.compile(r"[A-Za-z_]\w*")


def fragment(message: str, flagged: str) -> str:
    """The first clause of ``message`` naming a word of the flagged code (else the first clause),
    without a closing parenthesis that names none (a rule's constant wording)."""
    words = {word for word in WORD.findall(flagged) if not keyword.iskeyword(word)}

    def names(text):
        return any(re.search(rf"\b{re.escape(word)}\b", text) for word in words)

    clauses = re.split(r"[:;] ", message)
    chosen = next((clause for clause in clauses if names(clause)), clauses[0]).split('"')[0].strip()
    aside = re.search(r"\s*\([^()]*\)$", chosen)
    if aside and aside.start() and not names(aside.group()):
        chosen = chosen[: aside.start()]
    return chosen


def pinned_line(line: str, findings, number: int, problems) -> str:
    """``line`` with its bare marker items pinned from ``findings`` (those on this line)."""
    items = marker_items(line)
    if all(item.group("column") and item.group("fragment") is not None for item in items):
        return line
    claimed = {(item.group("code"), int(item.group("column"))) for item in items if item.group("column")}
    free = {}
    for finding in findings:
        if (finding.code, finding.col + 1) not in claimed:
            free.setdefault(finding.code, []).append(finding)
    bare = [item.group("code") for item in items if not item.group("column")]
    if sorted(set(bare)) != sorted(free):
        problems.append(f"line {number}: marked {', '.join(bare)}, reported {', '.join(sorted(free)) or 'nothing'}")
        return line
    pins = []
    for item in items:
        code = item.group("code")
        if item.group("column"):
            pins.append(item.group(0).rstrip(", "))
            continue
        for finding in free.pop(code, []):
            flagged = line[finding.col:finding.end_col] if finding.end_line == finding.line else line[finding.col:]
            pins.append(f'{code}@{finding.col + 1} "{fragment(finding.message, flagged)}"')
    start = MARKER.search(line).end()
    end = items[-1].end()
    rest = line[end:]
    return line[:start] + ", ".join(pins) + ("  " + rest.lstrip() if rest.strip() else rest.rstrip(" "))


def without_markers(text: str) -> str:
    return "\n".join(MARKER.split(line)[0] for line in text.split("\n"))


def pin(path: Path, check: bool) -> bool:
    """Pin one fixture (and its golden); False when something needs a person."""
    text = path.read_text(encoding="utf-8")
    by_line = {}
    for finding in lint_source(text):
        by_line.setdefault(finding.line, []).append(finding)
    problems = []
    lines = text.split("\n")
    new_lines = [pinned_line(line, by_line.get(number, []), number, problems)
                 for number, line in enumerate(lines, start=1)]
    changed = [number for number, (old, new) in enumerate(zip(lines, new_lines), start=1) if old != new]
    for problem in problems:
        print(f"{path.name}: {problem} (left as it is)")
    for number in changed:
        print(f"{path.name}:{number}: {new_lines[number - 1].strip()}")
    if check or not changed:
        return not problems
    new_text = "\n".join(new_lines)
    golden = path.with_name(path.stem + ".fixed.py")
    if golden.exists():
        new_golden = fix_source(new_text, unsafe=True).source
        if without_markers(new_golden) != without_markers(golden.read_text(encoding="utf-8")):
            print(f"{golden.name}: the fix changes more than marker comments; nothing written for {path.name}")
            return False
        golden.write_text(new_golden, encoding="utf-8")
    path.write_text(new_text, encoding="utf-8")
    return not problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="list what would be pinned, write nothing")
    parser.add_argument("fixtures", nargs="*", type=Path, help=f"default: every TENnnn.py in {FIXTURES}")
    arguments = parser.parse_args()
    results = [pin(path, arguments.check) for path in (arguments.fixtures or rule_fixtures())]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
