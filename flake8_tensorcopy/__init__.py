"""flake8-tensorcopy: find PyTorch tensor copy, conversion and aliasing bugs."""

__version__ = "0.1.0"
