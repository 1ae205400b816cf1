"""flake8-tensorcopy: find PyTorch tensor copy, conversion and aliasing bugs."""

__version__ = "0.4.24"

REPOSITORY = "https://github.com/flake8-tensorcopy/flake8-tensorcopy"


def install_hint(extra: str) -> str:
    """How to install an extra while there is no release on the package index: from a checkout,
    or from the repository (pin a commit with ``@SHA``)."""
    return f"pip install '.[{extra}]' in a checkout, or pip install 'flake8-tensorcopy[{extra}] @ git+{REPOSITORY}'"
