"""``tensorcopy-premises``: run every rule's premise on the devices present and print a table.

Exit codes: 0 every premise holds, 1 some premise failed, 2 usage error or torch/numpy missing.
"""

import argparse
import json
import os
import sys
import warnings
from typing import Dict, List, Optional, Sequence

REQUIREMENTS = ("torch", "numpy")
INSTALL_LINE = "pip install 'flake8-tensorcopy[premises]'"

COLUMNS = ("rule", "device", "torch", "hazard seen", "fix removes it", "values equal", "verdict")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="tensorcopy-premises", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda", "mps", "all"), default="all")
    parser.add_argument("--rule", action="append", metavar="TENnnn", help="only this rule (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    args = parser.parse_args(argv)
    missing = _missing_requirements()
    if missing:
        print(
            f"tensorcopy-premises needs {' and '.join(REQUIREMENTS)}; missing: {', '.join(missing)}. "
            f"The linter itself never imports them. Install the extra:\n    {INSTALL_LINE}",
            file=sys.stderr,
        )
        return 2
    from flake8_tensorcopy.premises import harness

    codes = harness.available_codes()
    if args.rule:
        unknown = [code for code in args.rule if code.upper() not in codes]
        if unknown:
            print(f"tensorcopy-premises: no premise for {', '.join(unknown)}", file=sys.stderr)
            return 2
        codes = [code.upper() for code in args.rule]
    devices = harness.devices(args.device)
    verdicts = [harness.check(code, device) for device, skipped in devices.items() if skipped is None for code in codes]
    skipped = {device: reason for device, reason in devices.items() if reason is not None}
    try:
        _print_verdicts(args, verdicts, skipped)
    except BrokenPipeError:
        _silence_stdout()
    failed = [verdict for verdict in verdicts if verdict.failed]
    for verdict in failed:
        print(f"FAILED {verdict.rule} on {verdict.device}: {verdict.detail}", file=sys.stderr)
    return 1 if failed or not verdicts else 0


def _missing_requirements() -> List[str]:
    """The requirements that do not import (quietly: torch warns when it imports without numpy)."""
    missing = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module in REQUIREMENTS:
            try:
                __import__(module)
            except ImportError:
                missing.append(module)
    return missing


def _silence_stdout() -> None:
    """The reader went away (``| head``): stop writing, as unix tools do, and keep the interpreter
    from failing again when it flushes stdout at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _print_verdicts(args, verdicts, skipped: Dict[str, str]) -> None:
    if args.json:
        rows = [dict(vars(verdict), verdict=verdict.verdict, holds=verdict.holds) for verdict in verdicts]
        print(json.dumps({"verdicts": rows, "skipped_devices": skipped}, indent=2))
    else:
        print(table(verdicts))
        for device, reason in skipped.items():
            print(f"skipped {device}: {reason}")
    sys.stdout.flush()


def _cell(value) -> str:
    return {True: "yes", False: "NO", None: "n/a"}.get(value, str(value))


def table(verdicts) -> str:
    """A Markdown table, one row per rule and device."""
    lines: List[str] = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for verdict in verdicts:
        cells = (verdict.rule, verdict.device, verdict.torch_version, _cell(verdict.hazard_seen),
                 _cell(verdict.fix_removes_it), _cell(verdict.values_equal), verdict.verdict)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
