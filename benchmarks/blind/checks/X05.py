"""Check for blind case X05 (flag TEN306 line 22): runs the case program and asserts its labelled behaviour.

Usage: python X05.py cpu|cuda  -> prints "OK X05 <device>" or "SKIP X05 <device>".
"""
from _harness import load, run


import torch


def check(device):
    ns = load("X05")
    model = torch.nn.Linear(5, 1).to(device)
    trainer = ns["DepthTrainer"](model)
    loader = [{"rgb": torch.randn(4, 5, device=device), "depth": torch.rand(4, 1, device=device)} for _ in range(3)]
    outputs = trainer.train_epoch(loader)
    assert all(o["loss"].grad_fn is not None for o in outputs), "a stored loss lost its graph"


if __name__ == "__main__":
    run("X05", check, cuda_only=False)
