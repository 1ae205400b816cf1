"""The runtime monitor: run a program or its tests and report each hazard of the catalog as it
happens (``tensorcopy-run``, ``pytest --tensorcopy``). This package and ``premises/`` are the
only ones that import torch; the linter never imports them."""
