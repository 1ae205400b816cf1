"""Check for blind case X44 (flag TEN304 line 6): runs the case program and asserts its labelled behaviour.

Usage: python X44.py cpu|cuda  -> prints "OK X44 <device>" or "SKIP X44 <device>".
"""
from _harness import load, run


def check(device):
    ns = load("X44")
    untied = ns["LanguageModel"](10, 4, tie=False)
    assert ns["weights_tied"](untied), "untied weights were reported untied"


if __name__ == "__main__":
    run("X44", check, cuda_only=False)
