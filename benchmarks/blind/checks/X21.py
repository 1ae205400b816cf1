"""Check for blind case X21 (flag TEN205 line 9): runs the case program and asserts its labelled behaviour.

Usage: python X21.py cpu|cuda  -> prints "OK X21 <device>" or "SKIP X21 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X21")
    bank = ns["MemoryBank"](8, 4, device=device)
    drift = bank.update(torch.tensor([0, 1], device=device), torch.randn(2, 4, device=device))
    if device == "cpu":
        assert drift == 0.0, f"drift {drift}"
    else:
        assert drift > 0.0  # off the CPU, .cpu() copies: the bug shows on the CPU only


if __name__ == "__main__":
    run("X21", check, cuda_only=False)
