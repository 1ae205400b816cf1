"""The examples PyTorch's own documentation gives for each hazard, run under the monitor: the
documented form reports its rule, the copy the documentation recommends reports nothing.

Written after the docs of ``Tensor.numpy``, ``torch.from_numpy``, ``Tensor.detach``,
``torch.tensor`` and autograd mechanics ("In-place operations on Tensors"), and the tutorial on
``non_blocking`` and ``pin_memory()`` (CUDA only)."""

import runpy
import textwrap

import pytest

torch = pytest.importorskip("torch")
from flake8_tensorcopy.runtime.monitor import Monitor  # noqa: E402

EXAMPLES = {
    "TEN201": ("""
        t = torch.ones(3)
        a = t.numpy(){copy}
        t.add_(1)
        print(a)
        """, ".copy()"),
    "TEN202": ("""
        a = numpy.array([1.0, 2.0, 3.0])
        t = torch.from_numpy(a){copy}
        t[0] = -1
        print(a)
        """, ".clone()"),
    "TEN203": ("""
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        out = a.sigmoid()
        c = out.detach(){copy}
        c.zero_()
        print(out)
        """, ".clone()"),
    "TEN307": ("""
        a = torch.randn(3, requires_grad=True)
        y = a.sigmoid(){copy}
        y.mul_(2)
        y.sum().backward()
        """, ".clone()"),
}
PINNED = """
    host = torch.ones(1 << 22).pin_memory()
    busy = torch.randn(4096, 4096, device="cuda")
    for _ in range(8):
        busy = busy @ busy / 4096
    device_copy = host.to("cuda", non_blocking=True)
    {sync}host.fill_(2.0)
    torch.cuda.synchronize()
    print(device_copy[0].item())
    """


def _reported(tmp_path, source: str) -> set:
    path = tmp_path / "example.py"
    path.write_text("import numpy\nimport torch\n" + textwrap.dedent(source), encoding="utf-8")
    with Monitor(static=False) as monitor:
        try:
            runpy.run_path(str(path), run_name="__main__")
        except RuntimeError:  # TEN307's documented form raises at backward
            pass
    return {report.code for report in monitor.reports}


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_the_documented_example_reports_its_rule_and_the_recommended_copy_nothing(tmp_path, code):
    source, copy = EXAMPLES[code]
    assert _reported(tmp_path, source.format(copy="")) == {code}
    assert _reported(tmp_path, source.format(copy=copy)) == set()


def test_torch_tensor_of_a_tensor_as_its_documentation_warns(tmp_path):
    assert _reported(tmp_path, "x = torch.ones(2)\ny = torch.tensor(x)\n") == {"TEN101"}
    assert _reported(tmp_path, "x = torch.ones(2)\ny = x.detach().clone()\n") == set()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="the tutorial's hazard exists only on CUDA")
def test_the_pin_memory_tutorials_write_before_the_copy_arrived(tmp_path):
    assert "TEN402" in _reported(tmp_path, PINNED.format(sync=""))
    assert _reported(tmp_path, PINNED.format(sync="torch.cuda.synchronize()\n    ")) == set()
