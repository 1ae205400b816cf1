"""Shared paths and the fixture marker format (``# expect: TEN101, TEN104``)."""

import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
# ``tensorcopy-fix`` as this checkout's code: an installed console script may be an older copy
TENSORCOPY_FIX = [sys.executable, "-m", "flake8_tensorcopy"]
MARKER = re.compile(r"#\s*expect:\s*(TEN\d{3}(?:\s*,\s*TEN\d{3})*)")


def checkout_env() -> dict:
    """The environment for a subprocess that must import this checkout, not an installed copy."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def rule_fixtures():
    """fixtures/TENnnn.py files (not the .fixed.py goldens)."""
    return sorted(path for path in FIXTURES.glob("TEN[0-9][0-9][0-9].py"))


def expected_findings(text: str):
    """The (line, code) pairs a fixture marks as findings."""
    expected = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            for code in match.group(1).split(","):
                expected.add((number, code.strip()))
    return expected


@pytest.fixture
def lint():
    """Lint a snippet and return its (line, code) pairs."""
    from flake8_tensorcopy.engine import lint_source

    def run(source: str):
        return sorted((finding.line, finding.code) for finding in lint_source(source))

    return run


def deeply_nested(shape: str, depth: int = 325) -> str:
    """A valid module with a TEN101 finding (line 5) and, on the finding's line or in its
    function's header, an expression ``depth`` levels deep in LibCST's tree."""
    header = "import torch\n\n\ndef f(t: torch.Tensor{default}):\n"
    if shape == "strings":  # adjacent literals: one ast Constant, ``depth`` LibCST nodes
        return header.format(default="") + "    return torch.tensor(t), " + " ".join(['"a"'] * depth) + "\n"
    if shape == "attributes":
        return header.format(default="") + "    return torch.tensor(t), t" + ".real" * depth + "\n"
    if shape == "methods":
        return header.format(default="") + "    return torch.tensor(t), t" + ".abs()" * depth + "\n"
    if shape == "unary_default":
        return header.format(default=", d=" + "-" * depth + "1") + "    return torch.tensor(t)\n"
    raise ValueError(shape)
