"""Check for blind case X15 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X15.py cpu|cuda  -> prints "OK X15 <device>" or "SKIP X15 <device>".
"""
from _harness import load, run


import numpy as np


def check(device):
    ns = load("X15")
    raw = np.arange(7, dtype=np.float64)
    tensor, shifted = ns["make_inputs"](raw)
    assert np.array_equal(tensor.numpy(), np.arange(7)) and np.array_equal(shifted.numpy(), np.arange(7) + 1)


if __name__ == "__main__":
    run("X15", check, cuda_only=False)
