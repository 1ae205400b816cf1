"""The rule registry: every rule, in code order, one module per family."""

from typing import Dict, Tuple

from flake8_tensorcopy.rules import aliasing, asynchronous, autograd, ten101, ten102, ten103, ten104, ten105, ten106, ten902, writes
from flake8_tensorcopy.rules.base import Rule

ALL_RULES: Tuple[Rule, ...] = tuple(
    sorted(ten101.RULES + ten102.RULES + ten103.RULES + ten104.RULES + ten105.RULES + ten106.RULES + ten902.RULES + aliasing.RULES + autograd.RULES + asynchronous.RULES + writes.RULES, key=lambda rule: rule.code)
)
# What runs unless codes are selected by name: every rule but the opinionated TEN9xx (off by
# default, as flake8-bugbear's B9xx).
DEFAULT_RULES: Tuple[Rule, ...] = tuple(rule for rule in ALL_RULES if not rule.opinionated)
RULES_BY_CODE: Dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}
