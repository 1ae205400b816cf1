"""Run every rule's premise on a device: does the hazard happen, and does the fix remove it?

A scenario (``fixtures/premises/TENnnn.py``) holds the flagged code in ``scenario(device)``
and says what the hazard looks like in ``hazard(outcome, device)``. Its good form is not
written by hand: it is what ``fix_source(..., unsafe=True)`` makes of the scenario's text.
Both forms run on the device; the verdict holds when the bad form shows the hazard, the
fixed form does not (and does not fail), and both compute equal values (``COMPARE``: same
values, dtype and device, and ``requires_grad`` where ``COMPARE_REQUIRES_GRAD``).

A scenario may also hold ``ADMITTED`` (the source of a function ``admitted(value)`` with the
flagged code) and ``admitted_values(device)``: every kind of value the finding's evidence
admits there, a Python list where an annotation is the only evidence. ``check_admitted`` runs
both forms on each: a fix that breaks one (fails, or computes other values or another shape,
where the flagged form worked) must not be safe.

This module imports torch; the linter never imports it.
"""

import warnings
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Dict, List, Optional

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.fixer import fix_source
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE

SCENARIOS = "flake8_tensorcopy.premises.scenarios"


@dataclass
class Outcome:
    """What running one form of a scenario produced."""

    result: Optional[dict]
    error: Optional[BaseException]
    warnings: List[str]


@dataclass
class Verdict:
    rule: str
    device: str
    torch_version: str
    hazard_seen: bool
    fix_removes_it: Optional[bool]  # None: the rule has no fix
    values_equal: Optional[bool]  # None: nothing to compare (the bad form raises, or no fix)
    detail: str = ""

    @property
    def holds(self) -> bool:
        return self.hazard_seen and self.fix_removes_it is not False and self.values_equal is not False


def _scenarios():
    """The scenario files: installed as a package, or ``fixtures/premises`` of a checkout (when
    the package is imported from the source tree, as pytest does from the repository root)."""
    try:
        return resources.files(SCENARIOS)
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "fixtures" / "premises"


def scenario_source(code: str) -> str:
    return _scenarios().joinpath(f"{code}.py").read_text(encoding="utf-8")


def available_codes() -> List[str]:
    return sorted(entry.name[:-3] for entry in _scenarios().iterdir() if entry.name.startswith("TEN"))


def devices(requested: str) -> Dict[str, Optional[str]]:
    """Device -> None when it will run, else why it is skipped."""
    import torch

    present = {
        "cpu": None,
        "cuda": None if torch.cuda.is_available() else "no CUDA device (torch.cuda.is_available() is False)",
        "mps": None
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
        else "no MPS device",
    }
    if requested == "all":
        return present
    return {requested: present[requested]}


def _load(source: str, name: str) -> dict:
    namespace = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def _run(namespace: dict, device: str) -> Outcome:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = namespace["scenario"](device)
            error = None
        except Exception as raised:  # the hazard of some rules is an exception
            result, error = None, raised
    return Outcome(result, error, [str(warning.message) for warning in caught])


def _equal(bad, good, compare_grad: bool) -> bool:
    import numpy as np
    import torch

    if isinstance(bad, torch.Tensor) and isinstance(good, torch.Tensor):
        same = bad.dtype == good.dtype and bad.device == good.device and bad.shape == good.shape
        same = same and bool(torch.equal(bad.detach().cpu(), good.detach().cpu()))
        return same and (not compare_grad or bad.requires_grad == good.requires_grad)
    if isinstance(bad, np.ndarray) and isinstance(good, np.ndarray):
        return bad.dtype == good.dtype and np.array_equal(bad, good)
    if isinstance(bad, dict) and isinstance(good, dict):
        return bad.keys() == good.keys() and all(_equal(bad[key], good[key], compare_grad) for key in bad)
    if isinstance(bad, (list, tuple)) and isinstance(good, (list, tuple)):
        return len(bad) == len(good) and all(_equal(a, b, compare_grad) for a, b in zip(bad, good))
    return bad == good


def check(code: str, device: str) -> Verdict:
    """The verdict of one rule's premise on one device."""
    import torch

    rule = RULES_BY_CODE[code]
    bad_source = scenario_source(code)
    flagged = {finding.code for finding in lint_source(bad_source)}
    if flagged != {code}:
        raise AssertionError(f"{code} scenario: the linter reports {sorted(flagged)}, not exactly {code}")
    bad = _load(bad_source, f"{code}_bad")
    bad_outcome = _run(bad, device)
    verdict = Verdict(code, device, torch.__version__, bool(bad["hazard"](bad_outcome, device)), None, None)
    if rule.fix_safety == "none":
        verdict.detail = "no fix: the message says what to do"
        return verdict
    fixed_source = fix_source(bad_source, unsafe=True).source
    if fixed_source == bad_source or any(f.code == code for f in lint_source(fixed_source)):
        raise AssertionError(f"{code} scenario: the fixer does not remove the finding")
    fixed_outcome = _run(_load(fixed_source, f"{code}_fixed"), device)
    if fixed_outcome.error is not None:
        verdict.fix_removes_it = False
        verdict.detail = f"the fixed form raises {fixed_outcome.error!r}"
        return verdict
    verdict.fix_removes_it = not bad["hazard"](fixed_outcome, device)
    compare = bad.get("COMPARE", ())
    if compare and bad_outcome.error is None:
        grad = bad.get("COMPARE_REQUIRES_GRAD", False)
        verdict.values_equal = all(
            _equal(bad_outcome.result[key], fixed_outcome.result[key], grad) for key in compare
        )
    elif bad_outcome.error is not None:
        verdict.detail = f"bad form raises {type(bad_outcome.error).__name__}"
    return verdict


@dataclass
class Admitted:
    """How a rule's fix treats every value its evidence admits."""

    rule: str
    device: str
    fix_safe: Optional[bool]  # None: the finding has no fix there
    broken: Dict[str, str]  # value's name -> what the fixed form did where the flagged one worked

    @property
    def holds(self) -> bool:
        return not (self.fix_safe and self.broken)


def check_admitted(code: str, device: str) -> Admitted:
    """Run the flagged and fixed forms of the scenario's ``ADMITTED`` on each admitted value."""
    scenario = _load(scenario_source(code), f"{code}_scenario")
    source = scenario["ADMITTED"]
    (finding,) = [finding for finding in lint_source(source) if finding.code == code]
    forms = [_load(source, f"{code}_admitted")]
    if finding.fix is not None:
        forms.append(_load(fix_source(source, unsafe=True).source, f"{code}_admitted_fixed"))
    broken = {}
    for name, value in scenario["admitted_values"](device).items():
        flagged, *fixed = (_run({"scenario": lambda _device, form=form: form["admitted"](value)}, device)
                           for form in forms)
        if flagged.error is not None or not fixed:
            continue
        if fixed[0].error is not None:
            broken[name] = f"the fixed form raises {fixed[0].error!r}"
        elif not _equal(flagged.result, fixed[0].result, False):
            broken[name] = "the fixed form computes other values"
    return Admitted(code, device, finding.fix.safe if finding.fix is not None else None, broken)


def rules_without_premise() -> List[str]:
    present = set(available_codes())
    return [rule.code for rule in ALL_RULES if rule.code not in present]
