"""Check for blind case X39 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X39.py cpu|cuda  -> prints "OK X39 <device>" or "SKIP X39 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X39")
    critic = torch.nn.Linear(3, 1).to(device)
    ns["train_critic"](critic, torch.randn(4, 3, device=device), torch.randn(4, 3, device=device),
                       torch.optim.RMSprop(critic.parameters(), lr=0.05))
    assert all(p.abs().max() <= 0.01 + 1e-7 for p in critic.parameters())


if __name__ == "__main__":
    run("X39", check, cuda_only=False)
