"""Which codes a selection (``--select TEN1,TEN203``) turns on, one answer for every face.

Imports nothing heavy: the flake8 plugin reads it before it knows whether a file needs the engine.
"""

from typing import Iterable

# The opinionated codes (TEN9xx, as flake8-bugbear's B9xx): shapes worth a look in review, not
# hazards. They run only when a selection names them.
OPINIONATED_PREFIX = "TEN9"


def is_opinionated(code: str) -> bool:
    return code.startswith(OPINIONATED_PREFIX)


def selects(prefixes: Iterable[str], code: str) -> bool:
    """Whether one of ``prefixes`` selects ``code``. A hazard code is selected by any prefix of
    it (``TEN``, ``TEN2``, ``TEN203``); an opinionated one only by a prefix that names its family
    or itself (``TEN9``, ``TEN901``): ``--select TEN`` asks for the hazards, never for opinions."""
    opinionated = is_opinionated(code)
    return any(code.startswith(prefix) and (not opinionated or is_opinionated(prefix)) for prefix in prefixes)
