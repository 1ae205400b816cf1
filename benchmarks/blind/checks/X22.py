"""Check for blind case X22 (flag TEN205 line 10): runs the case program and asserts its labelled behaviour.

Usage: python X22.py cpu|cuda  -> prints "OK X22 <device>" or "SKIP X22 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X22")
    cache = [torch.rand(3, 4, 4)]
    original = cache[0].clone()
    ns["epoch_inputs"](cache, ns["Normalizer"]([0.5, 0.5, 0.5], [0.25, 0.25, 0.25]))
    assert not torch.equal(cache[0], original), "the cached image was not changed"


if __name__ == "__main__":
    run("X22", check, cuda_only=False)
