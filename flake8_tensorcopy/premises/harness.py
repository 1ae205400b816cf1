"""Run every rule's premise on a device: does the hazard happen, and does the fix remove it?

A scenario (``fixtures/premises/TENnnn.py``) holds the flagged code in ``scenario(device)``
and says what the hazard looks like in ``hazard(outcome, device)``. Its good form is not
written by hand: it is what ``fix_source(..., unsafe=True)`` makes of the scenario's text.
Both forms run on the device; the verdict holds when the bad form shows the hazard, the
fixed form does not (and does not fail), and the values check passes. What a scenario may declare:

- ``DEVICES``: the device types on which the hazard must appear (default: every device). On
  the others the verdict is "not applicable": nothing is run and nothing is claimed.
- ``TRIES`` and ``ELEMENTS``: a racing hazard (``racing.py``): both forms run ``TRIES`` times;
  the hazard counts when any try shows it, and the fixed form must show it in none.
- ``COMPARE``: results the fix must leave as the flagged code computed them (same values, dtype
  and device, and ``requires_grad`` where ``COMPARE_REQUIRES_GRAD``).
- ``MEANT``: ``{changed: intended}``: in the fixed form, the value the fix changes must equal
  the value the author meant (the backup equals the weights it was taken from).

"values equal" is n/a when a scenario declares neither, or only ``COMPARE`` and its bad form raises.

A scenario may also hold ``ADMITTED`` (the source of a function ``admitted(value)`` with the
flagged code) and ``admitted_values(device)``: every kind of value the finding's evidence
admits there, a Python list where an annotation is the only evidence (made afresh for each
form: the flagged code may write it in place). ``check_admitted`` runs both forms on each: a fix
that breaks one (fails, or computes other values or another shape, where the flagged form
worked) must not be safe. The device each form's result lands on is recorded beside
(``Admitted.devices``): a fix may move a result on purpose, and says so.

This module imports torch; the linter never imports it.
"""

import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.fixer import fix_source
from flake8_tensorcopy.premises import racing
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE

SCENARIOS = "flake8_tensorcopy.premises.scenarios"
DEVICE_TYPES = ("cpu", "cuda", "mps")
HOLDS, FAILS, NOT_APPLICABLE = "holds", "FAILS", "not applicable"


class ScenarioError(AssertionError):
    """A scenario that cannot prove its premise as written (not flagged, not fixed, or racing
    without enough tries or elements): a bug in the scenario, not a verdict."""


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
    hazard_seen: Optional[bool]  # None: not applicable on this device
    fix_removes_it: Optional[bool]  # None: the rule has no fix, or not applicable
    values_equal: Optional[bool]  # None: nothing to compare (the bad form raises, or no fix)
    detail: str = ""
    applicable: bool = True

    @property
    def verdict(self) -> str:
        if not self.applicable:
            return NOT_APPLICABLE
        proved = self.hazard_seen and self.fix_removes_it is not False and self.values_equal is not False
        return HOLDS if proved else FAILS

    @property
    def holds(self) -> bool:
        return self.verdict == HOLDS

    @property
    def failed(self) -> bool:
        return self.verdict == FAILS


@dataclass
class Scenario:
    """One rule's premise, ready to run: the namespaces of its flagged form and of its fixed form
    (``None`` when the rule has no fix). The settings are read from the flagged form."""

    code: str
    bad: dict
    fixed: Optional[dict]
    devices: Tuple[str, ...] = field(init=False)
    tries: int = field(init=False)

    def __post_init__(self) -> None:
        self.devices = tuple(self.bad.get("DEVICES", DEVICE_TYPES))
        self.tries = int(self.bad.get("TRIES", 1))
        unknown = [device for device in self.devices if device not in DEVICE_TYPES]
        if unknown:
            raise ScenarioError(f"{self.code} scenario: unknown device types {unknown}; known: {DEVICE_TYPES}")
        if "TRIES" in self.bad:
            self._check_race()

    def _check_race(self) -> None:
        if self.tries < racing.MIN_TRIES:
            raise ScenarioError(f"{self.code} scenario: a race needs TRIES >= {racing.MIN_TRIES}, not {self.tries}")
        if self.bad.get("ELEMENTS", 0) < racing.MIN_ELEMENTS:
            raise ScenarioError(
                f"{self.code} scenario: a race needs ELEMENTS >= {racing.MIN_ELEMENTS} (a small copy may win it)"
            )
        if "DEVICES" not in self.bad:
            raise ScenarioError(f"{self.code} scenario: a race must name the DEVICES where copies are asynchronous")


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


def device_name(device: str) -> str:
    """What the device is, for the recorded table: the GPU's name, or the CPU's model."""
    import platform

    import torch

    kind = torch.device(device).type
    if kind == "cuda":
        return torch.cuda.get_device_name(torch.device(device))
    if kind == "cpu":
        try:
            with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
                for line in cpuinfo:
                    if line.startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor() or platform.machine()
    return f"{kind} ({platform.machine()})"


def _load(source: str, name: str) -> dict:
    namespace = {"__name__": name}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def load(code: str) -> Scenario:
    """The scenario of one rule, after checking that the linter flags its code (exactly this rule)
    and that the real fixer removes the finding; the fixed form is what the fixer writes."""
    bad_source = scenario_source(code)
    flagged = {finding.code for finding in lint_source(bad_source)}
    if flagged != {code}:
        raise ScenarioError(f"{code} scenario: the linter reports {sorted(flagged)}, not exactly {code}")
    if RULES_BY_CODE[code].fix_safety == "none":
        return Scenario(code, _load(bad_source, f"{code}_bad"), None)
    fixed_source = fix_source(bad_source, unsafe=True).source
    if fixed_source == bad_source or any(f.code == code for f in lint_source(fixed_source)):
        raise ScenarioError(f"{code} scenario: the fixer does not remove the finding")
    return Scenario(code, _load(bad_source, f"{code}_bad"), _load(fixed_source, f"{code}_fixed"))


def _run(namespace: dict, device: str) -> Outcome:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = namespace["scenario"](device)
            error = None
        except Exception as raised:  # the hazard of some rules is an exception
            result, error = None, raised
    return Outcome(result, error, [str(warning.message) for warning in caught])


def _equal(bad, good, compare_grad: bool, compare_device: bool = True) -> bool:
    import numpy as np
    import torch

    if isinstance(bad, torch.Tensor) and isinstance(good, torch.Tensor):
        same = bad.dtype == good.dtype and bad.shape == good.shape and (not compare_device or bad.device == good.device)
        same = same and bool(torch.equal(bad.detach().cpu(), good.detach().cpu()))
        return same and (not compare_grad or bad.requires_grad == good.requires_grad)
    if isinstance(bad, np.ndarray) and isinstance(good, np.ndarray):
        return bad.dtype == good.dtype and np.array_equal(bad, good)
    if isinstance(bad, dict) and isinstance(good, dict):
        return bad.keys() == good.keys() and all(_equal(bad[key], good[key], compare_grad, compare_device)
                                                  for key in bad)
    if isinstance(bad, (list, tuple)) and isinstance(good, (list, tuple)):
        return len(bad) == len(good) and all(_equal(a, b, compare_grad, compare_device) for a, b in zip(bad, good))
    return bad == good


def _values_equal(scenario: Scenario, bad_runs: List[Outcome], fixed_runs: List[Outcome]) -> Optional[bool]:
    """``COMPARE`` try by try between the forms (skipped when the bad form raised: nothing to
    compare), and ``MEANT`` within every try of the fixed form; None when nothing was compared."""
    settings = scenario.bad
    grad = settings.get("COMPARE_REQUIRES_GRAD", False)
    checks = []
    if all(outcome.error is None for outcome in bad_runs):
        checks += [
            _equal(bad.result[key], fixed.result[key], grad)
            for bad, fixed in zip(bad_runs, fixed_runs)
            for key in settings.get("COMPARE", ())
        ]
    checks += [
        _equal(fixed.result[changed], fixed.result[intended], grad)
        for fixed in fixed_runs
        for changed, intended in settings.get("MEANT", {}).items()
    ]
    return all(checks) if checks else None


def _count(hazard, runs: List[Outcome], device: str) -> int:
    return sum(bool(hazard(outcome, device)) for outcome in runs)


def judge(scenario: Scenario, device: str) -> Verdict:
    """The verdict of a loaded scenario on one device."""
    import torch

    verdict = Verdict(scenario.code, device, torch.__version__, None, None, None)
    if torch.device(device).type not in scenario.devices:
        verdict.applicable = False
        verdict.detail = f"the hazard exists only on {', '.join(scenario.devices)}"
        return verdict
    hazard, tries = scenario.bad["hazard"], scenario.tries
    bad_runs = [_run(scenario.bad, device) for _ in range(tries)]
    seen = _count(hazard, bad_runs, device)
    verdict.hazard_seen = seen > 0
    details = [f"hazard seen in {seen} of {tries} tries"] if tries > 1 else []
    if bad_runs[0].error is not None:
        details.append(f"bad form raises {type(bad_runs[0].error).__name__}")
    if scenario.fixed is None:
        verdict.detail = "; ".join(details + ["no fix: the message says what to do"])
        return verdict
    fixed_runs = [_run(scenario.fixed, device) for _ in range(tries)]
    failure = next((outcome.error for outcome in fixed_runs if outcome.error is not None), None)
    if failure is not None:
        verdict.fix_removes_it = False
        verdict.detail = f"the fixed form raises {failure!r}"
        return verdict
    fixed_seen = _count(hazard, fixed_runs, device)
    verdict.fix_removes_it = fixed_seen == 0
    if tries > 1:
        details.append(f"fixed form in {fixed_seen} of {tries}")
    verdict.values_equal = _values_equal(scenario, bad_runs, fixed_runs)
    verdict.detail = "; ".join(details)
    return verdict


def check(code: str, device: str) -> Verdict:
    """The verdict of one rule's premise on one device."""
    return judge(load(code), device)


@dataclass
class Admitted:
    """How a rule's fix treats every value its evidence admits."""

    rule: str
    device: str
    fix_safe: Optional[bool]  # None: the finding has no fix there
    broken: Dict[str, str]  # value's name -> what the fixed form did where the flagged one worked
    # value's name -> the device types of the flagged and the fixed form's tensor results, where
    # both ran (a fix may move a result on purpose: TEN106's stack keeps the elements' device)
    devices: Dict[str, Tuple[Optional[str], Optional[str]]] = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        return not (self.fix_safe and self.broken)


def check_admitted(code: str, device: str, source_name: str = "ADMITTED") -> Admitted:
    """Run the flagged and fixed forms of the scenario's ``ADMITTED`` (or another source it
    holds, ``source_name``, admitting the same values) on each admitted value."""
    scenario = _load(scenario_source(code), f"{code}_scenario")
    source = scenario[source_name]
    (finding,) = [finding for finding in lint_source(source) if finding.code == code]
    forms = [_load(source, f"{code}_admitted")]
    if finding.fix is not None:
        forms.append(_load(fix_source(source, unsafe=True).source, f"{code}_admitted_fixed"))
    broken, moved = {}, {}
    values = [scenario["admitted_values"](device) for _ in forms]  # each form may write its own in place
    for name in values[0]:
        flagged, *fixed = (_run({"scenario": lambda _device, form=form, made=made: form["admitted"](made[name])}, device)
                           for form, made in zip(forms, values))
        if flagged.error is not None or not fixed:
            continue
        if fixed[0].error is not None:
            broken[name] = f"the fixed form raises {fixed[0].error!r}"
            continue
        moved[name] = (_device_type(flagged.result), _device_type(fixed[0].result))
        if not _equal(flagged.result, fixed[0].result, False, compare_device=False):
            broken[name] = "the fixed form computes other values"
    return Admitted(code, device, finding.fix.safe if finding.fix is not None else None, broken, moved)


def _device_type(result) -> Optional[str]:
    """``cpu``, ``cuda``... for a tensor result; None for anything else."""
    device = getattr(result, "device", None)
    return getattr(device, "type", None)


def rules_without_premise() -> List[str]:
    present = set(available_codes())
    return [rule.code for rule in ALL_RULES if rule.code not in present]
