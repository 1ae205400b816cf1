"""Check for blind case X06 (clean): runs the case program and asserts its labelled behaviour.

Usage: python X06.py cpu|cuda  -> prints "OK X06 <device>" or "SKIP X06 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X06")
    model = ns["CharRNN"](10, 8)
    inp = torch.randint(0, 10, (6, 2))
    target = torch.randint(0, 10, (6, 2))
    before = model.embed.weight.detach().clone()
    ns["train_sequence"](model, torch.optim.SGD(model.parameters(), lr=0.5), inp, target)
    # every time step contributed: the first step's tokens got a gradient through the whole graph
    assert not torch.equal(before[inp[0]], model.embed.weight.detach()[inp[0]])


if __name__ == "__main__":
    run("X06", check, cuda_only=False)
