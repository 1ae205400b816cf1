"""``tensorcopy-run [--json FILE] script.py [args]``: run a script under the monitor, like
``python -m cProfile``: each hazard is printed to stderr as it happens, a summary at the end."""

import argparse
import json
import os
import runpy
import sys
from typing import Dict, List, Optional, Sequence

from flake8_tensorcopy import __version__, install_hint

EXIT_USAGE = 2
INSTALL_LINE = install_hint("runtime")


def summary(reports) -> str:
    if not reports:
        return "tensorcopy: no hazard seen"
    counts = {}
    for report in reports:
        counts[report.code] = counts.get(report.code, 0) + 1
    listed = ", ".join(f"{code} x{count}" for code, count in sorted(counts.items()))
    return f"tensorcopy: {len(reports)} hazard(s) seen: {listed}"


def failures_note(failures: Dict[str, int]) -> Optional[str]:
    """The monitor's own errors, caught and gone past (the program ran as it would unwatched)."""
    if not failures:
        return None
    listed = "; ".join(f"{error} (x{count})" for error, count in failures.items())
    return f"tensorcopy: the monitor's own error(s), ignored (please report them): {listed}"


def document(reports, argv: List[str], failures: Dict[str, int]) -> dict:
    """The versioned JSON document (``schema_version``), one object per report."""
    from flake8_tensorcopy.runtime.reports import JSON_SCHEMA_VERSION

    return {
        "schema_version": JSON_SCHEMA_VERSION,
        "tool": {"name": "tensorcopy-run", "version": __version__},
        "argv": argv,
        "reports": [report.as_json() for report in reports],
        "monitor_errors": [{"error": error, "count": count} for error, count in failures.items()],
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="tensorcopy-run", description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="also write the reports as JSON to FILE")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    options = parser.parse_args(argv)
    if not os.path.isfile(options.script):
        print(f"tensorcopy-run: no such script: {options.script}", file=sys.stderr)
        return EXIT_USAGE
    try:
        from flake8_tensorcopy.runtime.monitor import Monitor
    except ImportError as error:
        print(f"tensorcopy-run needs torch and numpy ({error}); install the extra:\n    {INSTALL_LINE}",
              file=sys.stderr)
        return EXIT_USAGE
    script = os.path.abspath(options.script)
    sys.argv = [script, *options.args]
    sys.path.insert(0, os.path.dirname(script))
    monitor = Monitor(on_report=lambda report: print(report.render(), file=sys.stderr, flush=True))
    status = 0
    monitor.start()
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:
        monitor.stop()
        _finish(monitor, options)
        raise
    monitor.stop()
    _finish(monitor, options)
    return status


def _finish(monitor, options) -> None:
    note = failures_note(monitor.failures)
    if note:
        print(note, file=sys.stderr)
    print(summary(monitor.reports), file=sys.stderr)
    if options.json:
        tmp = f"{options.json}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(document(monitor.reports, [options.script, *options.args], monitor.failures), handle, indent=2)
        os.replace(tmp, options.json)


if __name__ == "__main__":
    sys.exit(main())
