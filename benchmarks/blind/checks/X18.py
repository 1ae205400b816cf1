"""Check for blind case X18 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X18.py cpu|cuda  -> prints "OK X18 <device>" or "SKIP X18 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X18")
    model = ns["Classifier"](4, 3).to(device)
    x = torch.randn(5, 4, device=device)
    out = model(x)
    expected = model.backbone(x).detach().norm(dim=1)
    out.sum().backward()
    assert torch.allclose(model.feature_norms(), expected)


if __name__ == "__main__":
    run("X18", check, cuda_only=False)
