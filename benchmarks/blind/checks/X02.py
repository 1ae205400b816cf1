"""Check for blind case X02 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X02.py cpu|cuda  -> prints "OK X02 <device>" or "SKIP X02 <device>".
"""
from _harness import load, run


import copy

import torch


def check(device):
    ns = load("X02")
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1).to(device)
    x = torch.randn(16, 3, device=device) * 3
    y = torch.randn(16, 1, device=device)
    reference = copy.deepcopy(model)
    ns["fit"](model, [(x, y)], torch.nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=1.0))
    opt = torch.optim.SGD(reference.parameters(), lr=1.0)
    opt.zero_grad()
    torch.nn.MSELoss()(reference(x), y).backward()
    opt.step()
    assert torch.allclose(model.weight, reference.weight), "restored weights are not the best epoch's"


if __name__ == "__main__":
    run("X02", check, cuda_only=False)
