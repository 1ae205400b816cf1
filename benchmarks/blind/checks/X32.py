"""Check for blind case X32 (flag TEN105 line 13): runs the case program and asserts its labelled behaviour.

Usage: python X32.py cpu|cuda  -> prints "OK X32 <device>" or "SKIP X32 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X32")
    model = ns["SelfDistill"](3).to(device)
    with torch.no_grad():
        model.predictor.weight.zero_()
        model.predictor.bias.zero_()
    model(torch.randn(5, 3, device=device)).backward()
    # with a detached target and a zero predictor, the encoder gradient would be exactly zero
    assert model.encoder.weight.grad.abs().sum() > 0


if __name__ == "__main__":
    run("X32", check, cuda_only=False)
