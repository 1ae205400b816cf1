"""The flake8 face: findings as ``TENnnn message`` at (line, col).

TEN001 (line 1, column 0): the file could not be analysed, with the reason: too large, a line
too long, too deeply nested, code LibCST cannot parse, or an internal error. It is reported once
for that file and every other file is checked as usual: the plugin never raises into flake8.
"""

from typing import Tuple

from flake8_tensorcopy import __version__
from flake8_tensorcopy.knowledge.conventions import Conventions, configure
from flake8_tensorcopy.codes import OPINIONATED_PREFIX, selects
from flake8_tensorcopy.scan import MAX_LINE_CHARS, scan_statements

CANNOT_ANALYSE = "TEN001 flake8-tensorcopy could not analyse this file: {}"


class TensorCopyChecker:
    """flake8 plugin. Reuses the ast and the lines flake8 already has: no second read or parse.

    The engine (and with it LibCST, ~0.2 s to import) is loaded only when a file can hold a
    tensor: flake8 loads every plugin on every run, and most files of a project need nothing.
    """

    name = "flake8-tensorcopy"
    version = __version__
    # every code or prefix flake8 was asked to select (``parse_options``): an opinionated code
    # runs only when one of them names it, never through ``TEN``
    selection: Tuple[str, ...] = ()

    @classmethod
    def add_options(cls, option_manager) -> None:
        """``--extend-snapshot-names`` and friends: the naming conventions, extended (as
        bugbear's ``--extend-immutable-calls``; also read from flake8's config files). The
        opinionated codes (TEN9xx) are off unless selected, as bugbear's B9xx."""
        option_manager.extend_default_ignore([OPINIONATED_PREFIX])
        for key, table in Conventions.KEYS.items():
            option_manager.add_option(
                "--" + key, default=[], parse_from_config=True, comma_separated_list=True,
                help=f"names added to the {table.lower().replace('_', ' ')} convention (comma-separated)",
            )

    @classmethod
    def parse_options(cls, options) -> None:
        configure({key: getattr(options, key.replace("-", "_")) for key in Conventions.KEYS})
        cls.selection = _selection(options)

    def __init__(self, tree, lines):
        self.tree = tree
        self.lines = lines

    def run(self):
        try:
            findings = self._findings()
        except Exception as error:  # defence in depth: the engine raises only SourceError
            yield 1, 0, CANNOT_ANALYSE.format(_reason(error)), type(self)
            return
        for finding in findings:
            yield finding.line, finding.col, f"{finding.code} {finding.message}", type(self)

    def _findings(self):
        source = "".join(self.lines)
        if max(map(len, self.lines), default=0) <= MAX_LINE_CHARS:
            scanned = scan_statements(self.tree)
            if not scanned.file.may_hold_tensors:
                return []  # the engine's own first gate (one answer for both faces), without importing it
        elif "torch" in source or "numpy" in source:
            scanned = None  # the engine refuses it at once: no walk of a huge line's tree
        else:
            return []  # a data file (``*_pb2.py``): nothing for us, nothing to complain about
        from flake8_tensorcopy.engine import lint_source
        from flake8_tensorcopy.rules import ALL_RULES

        rules = tuple(rule for rule in ALL_RULES if not rule.opinionated or selects(self.selection, rule.code))
        return lint_source(source, self.tree, rules, scanned=scanned)


def _selection(options) -> Tuple[str, ...]:
    """Every code or prefix a flake8 option may select: ``--select``, ``--extend-select`` (from the
    command line or a configuration file), the plugins' default selection (our entry point,
    ``TEN``) and ``--enable-extensions``. flake8 lets an explicit ``--select TEN`` override our
    default ignore of TEN9; ``codes.selects`` does not count ``TEN`` as naming an opinion."""
    chosen = []
    for name in ("select", "extend_select", "extended_default_select", "enable_extensions"):
        value = getattr(options, name, None) or ()
        chosen += value.split(",") if isinstance(value, str) else value
    return tuple(code.strip() for code in chosen if code.strip())


def _reason(error: Exception) -> str:
    try:
        from flake8_tensorcopy.engine import as_source_error

        return str(as_source_error(error))
    except Exception:  # the engine itself cannot be loaded
        return f"internal error ({type(error).__name__})"
