"""Check for blind case X26 (flag TEN207 line 7): runs the case program and asserts its labelled behaviour.

Usage: python X26.py cpu|cuda  -> prints "OK X26 <device>" or "SKIP X26 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X26")
    image = torch.rand(3, 4, 4, device=device)
    pair = ns["add_noise_view"]({"image": image.clone()})
    assert torch.equal(pair["clean"], pair["noisy"]) and not torch.equal(pair["clean"], image)


if __name__ == "__main__":
    run("X26", check, cuda_only=False)
