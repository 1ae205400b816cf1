"""Check for blind case X11 (flag TEN201 line 15): runs the case program and asserts its labelled behaviour.

Usage: python X11.py cpu|cuda  -> prints "OK X11 <device>" or "SKIP X11 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X11")
    data = ns["ToyImages"]()
    before = data.images[0].clone()
    data[0]
    assert not torch.equal(before, data.images[0]), "the stored image was not changed"


if __name__ == "__main__":
    run("X11", check, cuda_only=False)
