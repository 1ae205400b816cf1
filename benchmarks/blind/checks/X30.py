"""Check for blind case X30 (flag TEN103 line 12): runs the case program and asserts its labelled behaviour.

Usage: python X30.py cpu|cuda  -> prints "OK X30 <device>" or "SKIP X30 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X30")
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)).to(device)
    reg = ns["L2SP"](model)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(4, 3, device=device)).pow(2).sum().backward()
        opt.step()
    assert float(reg.penalty()) == 0.0, "the penalty saw the initial weights"


if __name__ == "__main__":
    run("X30", check, cuda_only=False)
