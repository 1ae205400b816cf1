"""Check for blind case X48 (flag TEN401 line 5): runs the case program and asserts its labelled behaviour.

Usage: python X48.py cpu|cuda  -> prints "OK X48 <device>" or "SKIP X48 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X48")
    n = 1 << 22
    wrong = 0
    for _ in range(5):
        src = torch.full((n,), 7.0, device="cuda")
        busy = torch.randn(4096, 4096, device="cuda")
        for _ in range(8):
            busy = busy @ busy
            busy = busy / busy.norm()
        src.add_(busy[0, 0] * 0 + 1)  # queued behind the busy work: the values become 8.0 late
        out = ns["receive"](src, [("w", (n,))])
        wrong += int(not torch.all(out["w"] == 8.0))
        torch.cuda.synchronize()
    assert wrong > 0, "every unpacked buffer was complete"


if __name__ == "__main__":
    run("X48", check, cuda_only=True)
