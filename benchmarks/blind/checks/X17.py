"""Check for blind case X17 (flag TEN203 line 11): runs the case program and asserts its labelled behaviour.

Usage: python X17.py cpu|cuda  -> prints "OK X17 <device>" or "SKIP X17 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X17")
    model = torch.nn.Linear(3, 2).to(device)
    ema = ns["EMA"](model, decay=0.5)
    with torch.no_grad():
        model.weight.add_(1.0)
    target = model.weight.detach().clone()
    ema.update()
    assert ema.shadow["weight"].data_ptr() == model.weight.data_ptr()
    assert not torch.allclose(model.weight, target), "the EMA update left the model's weight alone"


if __name__ == "__main__":
    run("X17", check, cuda_only=False)
