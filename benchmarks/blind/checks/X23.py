"""Check for blind case X23 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X23.py cpu|cuda  -> prints "OK X23 <device>" or "SKIP X23 <device>".
"""
from _harness import load, run


import numpy as np
import torch


def check(device):
    ns = load("X23")
    raw = np.arange(48, dtype=np.uint8).tobytes()
    img, x = ns["decode"](raw, (3, 4, 4))
    assert torch.equal(img, torch.arange(48, dtype=torch.uint8).reshape(3, 4, 4))


if __name__ == "__main__":
    run("X23", check, cuda_only=False)
