"""Check for blind case X49 (flag TEN401 line 5): runs the case program and asserts its labelled behaviour.

Usage: python X49.py cpu|cuda  -> prints "OK X49 <device>" or "SKIP X49 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X49")
    wrong = 0
    for _ in range(5):
        busy = torch.randn(4096, 4096, device="cuda")
        for _ in range(8):
            busy = busy @ busy
            busy = busy / busy.norm()
        device_tensor = torch.ones(5, 1 << 20, device="cuda") + busy[0, 0] * 0
        pinned = torch.zeros(8, 1 << 20, pin_memory=True)
        wrong += int(ns["gather_rows"](device_tensor, pinned) != 5 * (1 << 20))
        torch.cuda.synchronize()
    assert wrong > 0, "every read saw the copied values"


if __name__ == "__main__":
    run("X49", check, cuda_only=True)
