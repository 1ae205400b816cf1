"""The flake8 face: findings as ``TENnnn message`` at (line, col)."""

from flake8_tensorcopy import __version__
from flake8_tensorcopy.engine import SourceError, lint_source


class TensorCopyChecker:
    """flake8 plugin. Reuses the ast and the lines flake8 already has: no second read or parse."""

    name = "flake8-tensorcopy"
    version = __version__

    def __init__(self, tree, lines):
        self.tree = tree
        self.lines = lines

    def run(self):
        try:
            findings = lint_source("".join(self.lines), self.tree)
        except SourceError:
            # flake8 reports syntax errors itself (E999); LibCST rejecting valid code is not
            # the user's problem to see on every run.
            return
        for finding in findings:
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
