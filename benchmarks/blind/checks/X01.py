"""Check for blind case X01 (flag TEN208 line 21): runs the case program and asserts its labelled behaviour.

Usage: python X01.py cpu|cuda  -> prints "OK X01 <device>" or "SKIP X01 <device>".
"""
from _harness import load, run


import copy

import torch


def diverging_setup(device):
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1).to(device)
    x = torch.randn(16, 3, device=device) * 3
    y = torch.randn(16, 1, device=device)
    return model, [(x, y)]


def check(device):
    ns = load("X01")
    model, loader = diverging_setup(device)
    reference = copy.deepcopy(model)
    ns["train_model"](model, loader, torch.nn.MSELoss(), torch.optim.SGD(model.parameters(), lr=1.0))
    # the best epoch of a diverging run is the first one: replay it on a copy
    opt = torch.optim.SGD(reference.parameters(), lr=1.0)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.MSELoss()(reference(x), y).backward()
        opt.step()
    assert not torch.allclose(model.weight, reference.weight), "the best epoch's weights were restored"


if __name__ == "__main__":
    run("X01", check, cuda_only=False)
