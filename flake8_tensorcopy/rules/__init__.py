"""The rule registry: every rule, in code order, one module per rule (TEN401/TEN402 share one)."""

from typing import Dict, Tuple

from flake8_tensorcopy.rules import (
    asynchronous, ten101, ten102, ten103, ten104, ten105, ten106, ten201, ten202, ten203, ten204, ten205, ten206,
    ten207, ten208, ten209, ten210, ten301, ten302, ten303, ten304, ten305, ten306, ten307, ten901, ten902,
)
from flake8_tensorcopy.rules.base import Rule

ALL_RULES: Tuple[Rule, ...] = tuple(sorted(
    ten101.RULES + ten102.RULES + ten103.RULES + ten104.RULES + ten105.RULES + ten106.RULES
    + (ten201.RULE, ten202.RULE, ten203.RULE, ten204.RULE, ten205.RULE, ten206.RULE, ten207.RULE, ten208.RULE)
    + ten209.RULES + ten210.RULES + ten301.RULES + ten302.RULES + ten303.RULES + ten304.RULES + ten305.RULES
    + ten306.RULES + ten307.RULES + asynchronous.RULES + ten901.RULES + ten902.RULES,
    key=lambda rule: rule.code))
# What runs unless codes are selected by name: every rule but the opinionated TEN9xx (off by
# default, as flake8-bugbear's B9xx).
DEFAULT_RULES: Tuple[Rule, ...] = tuple(rule for rule in ALL_RULES if not rule.opinionated)
RULES_BY_CODE: Dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}
