"""Check for blind case X33 (flag TEN106 line 10): runs the case program and asserts its labelled behaviour.

Usage: python X33.py cpu|cuda  -> prints "OK X33 <device>" or "SKIP X33 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X33")
    model = torch.nn.Linear(2, 1).to(device)
    samples = [(torch.randn(3, 2, device=device), torch.randn(3, 1, device=device)) for _ in range(3)]
    try:
        ns["train_step"](model, torch.optim.SGD(model.parameters(), lr=0.1), samples)
    except RuntimeError as error:
        assert "does not require grad" in str(error)
    else:
        raise AssertionError("backward succeeded")


if __name__ == "__main__":
    run("X33", check, cuda_only=False)
