"""``tensorcopy-premises``: run every rule's premise on the devices present and print a table."""

import argparse
import json
import sys
import warnings
from datetime import datetime, timezone
from typing import Dict, List, Optional, Sequence

from flake8_tensorcopy import install_hint
from flake8_tensorcopy.files import silence_stdout

EXIT_HOLDS, EXIT_FAILED, EXIT_USAGE, EXIT_NOTHING_CHECKED = 0, 1, 2, 3
EXIT_CODES = """\
exit codes:
  0  every premise that applies to the devices run holds
  1  some premise failed (its hazard was not seen, or the fix did not remove it or changed the values)
  2  usage error, or torch/numpy missing (install: pip install '.[premises]' in a checkout)
  3  nothing could be checked: a requested device is not present, or no selected premise
     applies to the devices present (TEN4xx hazards exist only where copies are asynchronous)
"""
REQUIREMENTS = ("torch", "numpy")
INSTALL_LINE = install_hint("premises")

COLUMNS = ("rule", "device", "torch", "hazard seen", "fix removes it", "values equal", "verdict")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tensorcopy-premises",
        description=__doc__.splitlines()[0],
        epilog=EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--device", choices=("cpu", "cuda", "mps", "all"), default="all")
    parser.add_argument("--rule", action="append", metavar="TENnnn", help="only this rule (repeatable)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    output.add_argument(
        "--markdown", action="store_true", help="print one table per device with its name, torch version and date"
    )
    args = parser.parse_args(argv)
    missing = _missing_requirements()
    if missing:
        print(
            f"tensorcopy-premises needs {' and '.join(REQUIREMENTS)}; missing: {', '.join(missing)}. "
            f"The linter itself never imports them. Install the extra:\n    {INSTALL_LINE}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    from flake8_tensorcopy.premises import harness

    codes = harness.available_codes()
    if args.rule:
        unknown = [code for code in args.rule if code.upper() not in codes]
        if unknown:
            print(f"tensorcopy-premises: no premise for {', '.join(unknown)}", file=sys.stderr)
            return EXIT_USAGE
        codes = [code.upper() for code in args.rule]
    devices = harness.devices(args.device)
    if args.device != "all" and devices[args.device] is not None:
        print(f"tensorcopy-premises: cannot run on {args.device}: {devices[args.device]}", file=sys.stderr)
        return EXIT_NOTHING_CHECKED
    present = [device for device, reason in devices.items() if reason is None]
    skipped = {device: reason for device, reason in devices.items() if reason is not None}
    scenarios = [harness.load(code) for code in codes]
    verdicts = [harness.judge(scenario, device) for device in present for scenario in scenarios]
    try:
        _print_verdicts(args, verdicts, skipped, harness)
    except BrokenPipeError:
        silence_stdout()
    failed = [verdict for verdict in verdicts if verdict.failed]
    for verdict in failed:
        print(f"FAILED {verdict.rule} on {verdict.device}: {verdict.detail}", file=sys.stderr)
    if failed:
        return EXIT_FAILED
    if not any(verdict.holds for verdict in verdicts):
        print("tensorcopy-premises: no selected premise applies to the devices present", file=sys.stderr)
        return EXIT_NOTHING_CHECKED
    return EXIT_HOLDS


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


def _print_verdicts(args, verdicts, skipped: Dict[str, str], harness) -> None:
    if args.json:
        rows = [dict(vars(verdict), verdict=verdict.verdict, holds=verdict.holds) for verdict in verdicts]
        print(json.dumps({"verdicts": rows, "skipped_devices": skipped}, indent=2))
    elif args.markdown:
        print(markdown(verdicts, skipped, harness.device_name))
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


def markdown(verdicts, skipped: Dict[str, str], device_name) -> str:
    """One section per device run: what the device is, the torch version and the date, then its
    table (the record kept in ``benchmarks/results/premises.md``)."""
    import platform

    import torch

    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    sections = []
    for device in dict.fromkeys(verdict.device for verdict in verdicts):
        rows = [verdict for verdict in verdicts if verdict.device == device]
        held = sum(verdict.holds for verdict in rows)
        applicable = sum(verdict.applicable for verdict in rows)
        sections.append(
            f"## {device}: {device_name(device)}\n\n"
            f"torch {torch.__version__}, Python {platform.python_version()}, {date}: "
            f"{held} of {applicable} applicable premises hold.\n\n{table(rows)}"
        )
    sections += [f"Skipped {device}: {reason}." for device, reason in skipped.items()]
    return "\n\n".join(sections)


if __name__ == "__main__":
    sys.exit(main())
