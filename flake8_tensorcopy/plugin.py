"""The flake8 face: findings as ``TENnnn message`` at (line, col)."""

from flake8_tensorcopy import __version__
from flake8_tensorcopy.analysis.conventions import Conventions, configure
from flake8_tensorcopy.scan import scan_statements


class TensorCopyChecker:
    """flake8 plugin. Reuses the ast and the lines flake8 already has: no second read or parse.

    The engine (and with it LibCST, ~0.2 s to import) is loaded only when a file can hold a
    tensor: flake8 loads every plugin on every run, and most files of a project need nothing.
    """

    name = "flake8-tensorcopy"
    version = __version__

    @classmethod
    def add_options(cls, option_manager) -> None:
        """``--extend-snapshot-names`` and friends: the naming conventions, extended (as
        bugbear's ``--extend-immutable-calls``; also read from flake8's config files)."""
        for key, table in Conventions.KEYS.items():
            option_manager.add_option(
                "--" + key, default=[], parse_from_config=True, comma_separated_list=True,
                help=f"names added to the {table.lower().replace('_', ' ')} convention (comma-separated)",
            )

    @classmethod
    def parse_options(cls, options) -> None:
        configure({key: getattr(options, key.replace("-", "_")) for key in Conventions.KEYS})

    def __init__(self, tree, lines):
        self.tree = tree
        self.lines = lines

    def run(self):
        scanned = scan_statements(self.tree)
        if not scanned.file.may_hold_tensors:
            return  # no import of torch or numpy and no tensor-only call: no rule can know a tensor
        from flake8_tensorcopy.engine import SourceError, lint_source

        try:
            findings = lint_source("".join(self.lines), self.tree, scanned=scanned)
        except SourceError:
            # flake8 reports syntax errors itself (E999); LibCST rejecting valid code is not
            # the user's problem to see on every run.
            return
        for finding in findings:
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)
