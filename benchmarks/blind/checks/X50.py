"""Check for blind case X50 (flag TEN402 line 9; allow TEN402 line 8): runs the case program and asserts its labelled behaviour.

Usage: python X50.py cpu|cuda  -> prints "OK X50 <device>" or "SKIP X50 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X50")
    wrong = 0
    for _ in range(5):
        busy = torch.randn(4096, 4096, device="cuda")
        for _ in range(8):
            busy = busy @ busy
            busy = busy / busy.norm()
        batches = [torch.full((1 << 22,), float(i)) for i in range(3)]
        uploaded = ns["upload_batches"](batches)
        torch.cuda.synchronize()
        wrong += int(any(not torch.all(u == i) for i, u in enumerate(uploaded)))
    assert wrong > 0, "every upload kept its own batch"


if __name__ == "__main__":
    run("X50", check, cuda_only=True)
