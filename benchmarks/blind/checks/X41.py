"""Check for blind case X41 (flag TEN302 line 10): runs the case program and asserts its labelled behaviour.

Usage: python X41.py cpu|cuda  -> prints "OK X41 <device>" or "SKIP X41 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X41")
    model = torch.nn.Linear(2, 1).to(device)
    try:
        ns["step"](model, torch.optim.SGD(model.parameters(), lr=0.1), torch.randn(3, 2, device=device),
                   torch.randn(3, 1, device=device), ns["History"]())
    except (RuntimeError, TypeError) as error:
        assert "numpy" in str(error)
    else:
        raise AssertionError("numpy() succeeded")


if __name__ == "__main__":
    run("X41", check, cuda_only=False)
