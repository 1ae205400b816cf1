"""Check for blind case X45 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X45.py cpu|cuda  -> prints "OK X45 <device>" or "SKIP X45 <device>".
"""
from _harness import load, run


def check(device):
    ns = load("X45")
    assert ns["LanguageModel"](10, 4, tie=True).weights_tied()
    assert not ns["LanguageModel"](10, 4, tie=False).weights_tied()


if __name__ == "__main__":
    run("X45", check, cuda_only=False)
