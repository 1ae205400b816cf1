"""``python -m flake8_tensorcopy``: the same as ``tensorcopy-fix``."""

import sys

from flake8_tensorcopy.cli import main

sys.exit(main())
