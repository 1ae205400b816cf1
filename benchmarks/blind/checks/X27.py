"""Check for blind case X27 (flag TEN101 line 16): runs the case program and asserts its labelled behaviour.

Usage: python X27.py cpu|cuda  -> prints "OK X27 <device>" or "SKIP X27 <device>".
"""
from _harness import load, run


import warnings

import torch


def check(device):
    ns = load("X27")
    batch = ns["collate"]([{"input_ids": torch.arange(4), "labels": torch.tensor([1, -100, 0, 1])}] * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ns["Detector"](device).predict(batch)
    assert any("copy construct from a tensor" in str(w.message) for w in caught)


if __name__ == "__main__":
    run("X27", check, cuda_only=False)
