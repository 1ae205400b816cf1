"""``tensorcopy-premises``: run every rule's premise on the devices present and print a table.

Exit codes: 0 every premise holds, 1 some premise failed, 2 usage error or torch missing.
"""

import argparse
import json
import sys
from typing import List, Optional, Sequence

INSTALL_HINT = (
    "tensorcopy-premises needs torch, which the linter itself never imports. Install the extra:\n"
    "    pip install 'flake8-tensorcopy[premises]'\n"
    "(on machines with a local CPU wheel: pip install torch==2.13.0)"
)

COLUMNS = ("rule", "device", "torch", "hazard seen", "fix removes it", "values equal", "verdict")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="tensorcopy-premises", description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda", "mps", "all"), default="all")
    parser.add_argument("--rule", action="append", metavar="TENnnn", help="only this rule (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the verdicts as JSON")
    args = parser.parse_args(argv)
    try:
        import torch  # noqa: F401  (only to say clearly when it is missing)
    except ImportError:
        print(INSTALL_HINT, file=sys.stderr)
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
    if args.json:
        rows = [dict(vars(verdict), holds=verdict.holds) for verdict in verdicts]
        print(json.dumps({"verdicts": rows, "skipped_devices": skipped}, indent=2))
    else:
        print(table(verdicts))
        for device, reason in skipped.items():
            print(f"skipped {device}: {reason}")
    failed = [verdict for verdict in verdicts if verdict.failed]
    for verdict in failed:
        print(f"FAILED {verdict.rule} on {verdict.device}: {verdict.detail}", file=sys.stderr)
    return 1 if failed or not verdicts else 0


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
