"""Check for blind case X10 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X10.py cpu|cuda  -> prints "OK X10 <device>" or "SKIP X10 <device>".
"""
from _harness import load, run


import copy

import torch


def check(device):
    ns = load("X10")
    block = ns["ConvBlock"](3, 4).to(device)
    twin = copy.deepcopy(block)
    twin.activ = torch.nn.ReLU(inplace=False)
    x = torch.randn(2, 3, 5, 5, device=device)
    block(x).sum().backward()
    twin(x).sum().backward()
    assert torch.allclose(block.conv.weight.grad, twin.conv.weight.grad, atol=1e-6)


if __name__ == "__main__":
    run("X10", check, cuda_only=False)
