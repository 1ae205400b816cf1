"""Check for blind case X37 (flag TEN301 line 13; allow TEN307 line 13): runs the case program and asserts its labelled behaviour.

Usage: python X37.py cpu|cuda  -> prints "OK X37 <device>" or "SKIP X37 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X37")
    model = ns["Scorer"](2).to(device)
    with torch.no_grad():
        model.fc.weight.fill_(5.0)
        model.fc.bias.fill_(2.0)
    x = torch.ones(3, 2, device=device)
    targets = torch.ones(3, device=device)
    model(x, targets).backward()
    got = model.fc.bias.grad.clone()
    model.zero_grad()
    p = torch.sigmoid(model.fc(x)).squeeze(-1)
    torch.nn.functional.binary_cross_entropy(p.clamp(1e-4, 1 - 1e-4), targets).backward()
    assert not torch.allclose(got, model.fc.bias.grad), "the gradients are right"


if __name__ == "__main__":
    run("X37", check, cuda_only=False)
