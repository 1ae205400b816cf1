"""Check for blind case X14 (flag TEN202 line 6): runs the case program and asserts its labelled behaviour.

Usage: python X14.py cpu|cuda  -> prints "OK X14 <device>" or "SKIP X14 <device>".
"""
from _harness import load, run


import numpy as np


def check(device):
    ns = load("X14")
    frames = np.arange(32, dtype=np.float32).reshape(2, 4, 4) + 10
    original = frames.copy()
    batch, _ = ns["frames_to_batch"](frames)
    assert not np.allclose(batch.numpy(), original), "the batch kept the raw frames"


if __name__ == "__main__":
    run("X14", check, cuda_only=False)
