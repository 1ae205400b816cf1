"""Check for blind case X42 (flag TEN303 line 13): runs the case program and asserts its labelled behaviour.

Usage: python X42.py cpu|cuda  -> prints "OK X42 <device>" or "SKIP X42 <device>".
"""
from _harness import load, run


import warnings

import torch


def check(device):
    ns = load("X42")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ns["train_logistic"](torch.randn(6, 4), torch.randint(0, 10, (6,)))
        except TypeError:
            pass
        else:
            raise AssertionError("the update ran")
    assert any("not a leaf Tensor" in str(w.message) for w in caught)


if __name__ == "__main__":
    run("X42", check, cuda_only=False)
