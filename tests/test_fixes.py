"""Fixes: the golden files, idempotence, safety classes, noqa, comments and spelling.

``fixtures/TENnnn.fixed.py`` is exactly what ``tensorcopy-fix --unsafe-fixes`` writes for
``fixtures/TENnnn.py``. Regenerate after changing a fix:

    for f in fixtures/TEN[0-9][0-9][0-9].py; do
        tensorcopy-fix --unsafe-fixes - < "$f" > "${f%.py}.fixed.py"; done   # (not TEN303: no fix)
"""

import pytest

from conftest import FIXTURES, fixture_findings, per_fixture, rule_fixtures
from flake8_tensorcopy.engine import lint_source
from flake8_tensorcopy.fixer import fix_source
from flake8_tensorcopy.rules import ALL_RULES, RULES_BY_CODE

FIXABLE = [rule for rule in ALL_RULES if rule.fix_safety != "none"]


def no_fix_lines(text: str):
    """Lines whose marker says the finding has no fix."""
    return {number for number, line in enumerate(text.splitlines(), start=1) if "(no fix:" in line}


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_golden_file_is_what_the_fixer_writes_and_its_last_pass_leaves_the_findings_without_a_fix(rule):
    """The fixer stops where a pass over its own output, the golden file, finds nothing left to
    fix: what that pass finds of the rule are the findings marked as having no fix."""
    source = (FIXTURES / f"{rule.code}.py").read_text(encoding="utf-8")
    golden = (FIXTURES / f"{rule.code}.fixed.py").read_text(encoding="utf-8")
    result = fix_source(source, unsafe=True)
    assert result.source == golden
    assert not result.unstable
    assert {finding.line for finding in result.remaining if finding.code == rule.code} == no_fix_lines(golden)


@pytest.mark.slow  # the golden file fixed on its own, from a fresh start (the test above sees its last pass)
@pytest.mark.parametrize("rule", FIXABLE, ids=lambda rule: rule.code)
def test_fixing_the_golden_file_again_changes_nothing_and_leaves_the_findings_without_a_fix(rule):
    golden = (FIXTURES / f"{rule.code}.fixed.py").read_text(encoding="utf-8")
    result = fix_source(golden, unsafe=True)
    assert result.source == golden
    assert not result.applied
    assert {finding.line for finding in result.remaining if finding.code == rule.code} == no_fix_lines(golden)


def test_rules_without_a_fix_have_no_golden_file():
    assert {path.name.split(".")[0] for path in FIXTURES.glob("*.fixed.py")} == {rule.code for rule in FIXABLE}


@pytest.mark.parametrize("path", per_fixture(rule_fixtures(), code=lambda path: path.stem))
def test_every_fix_has_its_rule_safety(path):
    """A "safe" rule's fix is unsafe only where its message says the evidence is weak; an
    "unsafe" rule's fix is never safe."""
    for finding in fixture_findings(path):
        rule = RULES_BY_CODE[finding.code]
        declared = rule.fix_safety
        if finding.fix is None:
            continue
        assert declared != "none"
        weak = "is a tensor by weak evidence" in finding.message
        assert finding.fix.safe is (declared == "safe" and not weak), finding


def test_safe_mode_applies_only_safe_fixes():
    source = (
        "import torch\n"
        "def f(n: int):\n"
        "    t = torch.randn(n)\n"
        "    a = torch.tensor(t)\n"
        "    b = torch.Tensor(t)\n"
        "    return a, b\n"
    )
    result = fix_source(source)
    assert result.source == source.replace("torch.tensor(t)", "t.detach().clone()")
    assert [finding.code for finding in result.remaining] == ["TEN103"]


ANNOTATED_ONLY = (
    "import torch\n"
    "def rescale(mean: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, like: torch.Tensor):\n"
    "    m = torch.tensor(mean)\n"
    "    n = like.new_tensor(mean)\n"
    "    scale.requires_grad_(False)\n"
    "    s = torch.tensor(scale)\n"
    "    if isinstance(shift, torch.Tensor):\n"
    "        b = torch.tensor(shift)\n"
    "    c = torch.tensor(torch.zeros(2))\n"
    "    mean.detach_()\n"
    "    return m, n, s, b, c\n"
)


def test_a_fix_on_an_annotation_alone_is_unsafe():
    """mean is only annotated (callers may pass a list, where mean.detach() raises); scale is
    proven by a use before the site, shift by isinstance, torch.zeros by construction. A use
    after the site (mean.detach_()) proves nothing at the site."""
    result = fix_source(ANNOTATED_ONLY)
    assert result.source == (
        "import torch\n"
        "def rescale(mean: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor, like: torch.Tensor):\n"
        "    m = torch.tensor(mean)\n"
        "    n = like.new_tensor(mean)\n"
        "    scale.requires_grad_(False)\n"
        "    s = scale.detach().clone()\n"
        "    if isinstance(shift, torch.Tensor):\n"
        "        b = shift.detach().clone()\n"
        "    c = torch.zeros(2).detach().clone()\n"
        "    mean.detach_()\n"
        "    return m, n, s, b, c\n"
    )
    assert [(finding.code, finding.line) for finding in result.remaining] == [("TEN101", 3), ("TEN102", 4)]
    assert result.remaining[0].message == (
        "torch.tensor() on tensor 'mean' copies it detached and warns; use mean.detach().clone() "
        "('mean' is a tensor by weak evidence, annotated as a tensor: the fix is unsafe)"
    )
    unsafe = fix_source(ANNOTATED_ONLY, unsafe=True).source.splitlines()
    assert unsafe[2:4] == [
        "    m = mean.detach().clone()",
        "    n = mean.detach().to(device=like.device, dtype=like.dtype, copy=True)",
    ]


@pytest.mark.parametrize(
    "value, safe",
    [
        ("w", False),  # w: torch.Tensor, annotated only
        ("w[0]", False),  # indexing a list works too
        ("w * 2", False),  # so does repeating one
        ("w.float()", False),  # an ndarray has no float(), but the method table is not a proof
        ("w.detach()", True),  # only a tensor has detach()
        ("torch.ones(3) * w", False),  # the weakest operand decides
        ("torch.ones(3)", True),
        ("p", True),  # for p in model.parameters()
        ("either", False),  # a tensor on one path, only annotated on the other
        ("model(w)", False),  # model is an nn.Module by its annotation only
        ("nn.Linear(3, 3)(w)", True),  # a module torch built
    ],
)
def test_fix_safety_follows_the_weakest_evidence(value, safe):
    source = (
        "import torch\nfrom torch import nn\n"
        "def f(w: torch.Tensor, model: nn.Module, flag: bool):\n"
        "    either = torch.zeros(3) if flag else w\n"
        "    for p in model.parameters():\n"
        f"        return torch.tensor({value})\n"
    )
    (finding,) = [finding for finding in lint_source(source) if finding.code == "TEN101"]
    assert finding.fix.safe is safe


def test_an_attribute_given_an_annotated_parameter_is_only_annotated():
    """A config's ``latents_mean: torch.Tensor`` kept on self may be the list a caller passed;
    a registered buffer cannot be anything but a tensor (torch refuses the rest)."""
    source = (
        "import torch\nfrom torch import nn\n"
        "class Scaler(nn.Module):\n"
        "    def __init__(self, mean: torch.Tensor):\n"
        "        super().__init__()\n"
        "        self.mean = mean\n"
        "        self.register_buffer('std', torch.ones(3))\n"
        "    def forward(self):\n"
        "        return torch.tensor(self.mean), torch.tensor(self.std)\n"
    )
    assert fix_source(source).source.splitlines()[-1] == (
        "        return torch.tensor(self.mean), self.std.detach().clone()"
    )


def test_fixes_whose_code_proves_the_tensor_stay_safe_on_an_annotation():
    """Only a tensor has clone() and detach(), or numpy(): where an annotation lied, the flagged
    code raises as the fixed code does, so TEN104 and TEN302 need no more evidence."""
    source = (
        "from torch import nn\n"
        "def f(w: nn.Parameter):\n"
        "    return w.clone().detach(), w.numpy()\n"
    )
    assert fix_source(source).source.splitlines()[-1] == "    return w.detach().clone(), w.detach().cpu().numpy()"


def test_stack_fix_only_for_a_literal_list_of_0d_tensors():
    """torch.stack of shape-(1,) items gives (C, 1) where torch.tensor gave (C,), and
    torch.stack([]) raises: only known 0-d items in a literal list get the fix."""
    source = (
        "import torch\nimport torch.nn.functional as F\n"
        "def f(x: torch.Tensor, y: torch.Tensor):\n"
        "    loss = F.mse_loss(x, y)\n"
        "    a = torch.tensor([loss, x.sum(), 2 * loss.detach()])\n"
        "    b = torch.tensor([x[:1] * loss, y.sum(0, keepdim=True)])\n"
        "    losses = []\n"
        "    losses.append(loss)\n"
        "    c = torch.tensor(losses)\n"
        "    return a, b, c\n"
    )
    result = fix_source(source, unsafe=True)
    assert result.source == source.replace(
        "torch.tensor([loss, x.sum(), 2 * loss.detach()])", "torch.stack([loss, x.sum(), 2 * loss.detach()])"
    )
    assert [(finding.code, finding.line, finding.fix) for finding in result.remaining] == [
        ("TEN106", 6, None), ("TEN106", 9, None)
    ]


def test_noqa_line_is_not_fixed():
    source = (
        "import torch\n"
        "def f(n: int):\n"
        "    t = torch.randn(n)\n"
        "    a = torch.tensor(t)  # noqa: TEN101\n"
        "    b = torch.tensor(t)  # noqa\n"
        "    c = torch.tensor(t)  # noqa: E501\n"
        "    return a, b, c\n"
    )
    expected = source.replace("c = torch.tensor(t)", "c = t.detach().clone()")
    assert fix_source(source).source == expected


def test_fix_keeps_comments_and_surrounding_formatting():
    source = (
        "import torch\n"
        "def f(n: int):\n"
        "    t = torch.randn(n)\n"
        "    a = torch.tensor(  # why we copy\n"
        "        t,\n"
        "        dtype=torch.float64,  # wide\n"
        "    )\n"
        "    return (torch.tensor(t))  # trailing\n"
    )
    assert fix_source(source).source == (
        "import torch\n"
        "def f(n: int):\n"
        "    t = torch.randn(n)\n"
        "    a = (  # why we copy\n"
        "        # wide\n"
        "        t.detach().clone().to(dtype=torch.float64)\n"
        "    )\n"
        "    return (t.detach().clone())  # trailing\n"
    )


def test_overlapping_fixes_settle_in_passes():
    source = "import torch\ndef f(w: torch.Tensor, x: torch.Tensor):\n    w.requires_grad_()\n    return torch.tensor(x.new_tensor(w))\n"
    result = fix_source(source)
    assert result.source.splitlines()[-1] == (
        "    return w.detach().to(device=x.device, dtype=x.dtype, copy=True).detach().clone()"
    )
    assert sorted(finding.code for finding in result.applied) == ["TEN101", "TEN102"]


def test_nested_findings_settle_in_one_pass_without_repeated_copies():
    depth = 12  # more than MAX_PASSES: each level used to take a pass of its own
    source = (
        "import torch\n"
        "x = torch.zeros(3, requires_grad=True)\n"
        "a = " + "torch.tensor(" * depth + "x" + ")" * depth + "\n"
        "b = torch.tensor(x.clone().detach().clone().detach())\n"
        "c = torch.tensor(  # keep\n"
        "    torch.tensor(x)  # this too\n"
        ")\n"
    )
    result = fix_source(source)
    assert result.source == (
        "import torch\n"
        "x = torch.zeros(3, requires_grad=True)\n"
        "a = x.detach().clone()\n"
        "b = x.detach().clone()\n"
        "c = (  # keep\n"
        "    # this too\n"
        "    x.detach().clone()\n"
        ")\n"
    )
    assert not result.unstable and not result.remaining
    again = fix_source(result.source)
    assert again.source == result.source and not again.applied


def test_a_fix_never_rewrites_code_a_noqa_silenced():
    """The TEN101 fix would rewrite the clone().detach() a ``# noqa: TEN104`` keeps, or the line
    a bare ``# noqa`` silences: it is left off (the finding stays); other codes do not count."""
    source = (
        "import torch\n"
        "def f(n: int):\n"
        "    w = torch.randn(n, requires_grad=True)\n"
        "    a = torch.tensor(w.clone().detach())  # noqa: TEN104\n"
        "    b = torch.tensor(\n"
        "        w.clone().detach()  # noqa: TEN104\n"
        "    )\n"
        "    c = torch.tensor(\n"
        "        w  # noqa\n"
        "    )\n"
        "    d = torch.tensor(w.clone().detach())  # noqa: E501\n"
        "    return a, b, c, d\n"
    )
    result = fix_source(source)
    assert result.source == source.replace(
        "d = torch.tensor(w.clone().detach())  # noqa: E501", "d = w.detach().clone()  # noqa: E501"
    )
    assert [(finding.code, finding.line) for finding in result.remaining] == [
        ("TEN101", 4), ("TEN101", 5), ("TEN101", 8)
    ]


@pytest.mark.parametrize(
    "before, after",
    [
        ("import torch as th\ndef f(a: th.nn.Parameter):\n    return th.tensor([a.sum(), a.max()])\n",
         "import torch as th\ndef f(a: th.nn.Parameter):\n    return th.stack([a.sum(), a.max()])\n"),
        ("import torch as th\nfrom torch import tensor as T\ndef f(a: th.nn.Parameter):\n    return T([a.sum(), a.max()])\n",
         "import torch as th\nfrom torch import tensor as T\ndef f(a: th.nn.Parameter):\n    return th.stack([a.sum(), a.max()])\n"),
        # no torch module in the file: the fix would need an import, so none is offered
        ("from torch import Tensor, tensor as T\ndef f(a: Tensor):\n    return T([a.sum(), a.max()])\n",
         "from torch import Tensor, tensor as T\ndef f(a: Tensor):\n    return T([a.sum(), a.max()])\n"),
        ("import torch\ndef f(a: torch.Tensor, b: torch.nn.Parameter):\n    return torch.tensor((a.sum() + b.mean(), b.std()))\n",
         "import torch\ndef f(a: torch.Tensor, b: torch.nn.Parameter):\n    return torch.stack((a.sum() + b.mean(), b.std()))\n"),
    ],
)
def test_fix_spells_torch_as_the_file_does(before, after):
    assert fix_source(before, unsafe=True).source == after


def test_keyword_forms_of_torch_tensor():
    source = (
        "import torch\ndef f(n: int):\n    t = torch.randn(n)\n"
        "    return torch.tensor(t, dtype=torch.float16, device='cpu', requires_grad=True)\n"
    )
    assert fix_source(source).source.splitlines()[-1] == (
        "    return t.detach().clone().to(dtype=torch.float16, device='cpu').requires_grad_(True)"
    )


def test_unknown_keyword_leaves_the_finding_unfixed():
    source = "import torch\ndef f(t: torch.Tensor):\n    return torch.tensor(t, pin_memory=True)\n"
    result = fix_source(source)
    assert result.source == source
    assert [finding.code for finding in result.remaining] == ["TEN101"]


def test_data_as_an_augmented_assignment_target_is_reported_without_a_fix():
    source = "from torch import nn\ndef f(p: nn.Parameter, d, x):\n    y = x * p\n    p.data += d\n    y.sum().backward()\n"
    result = fix_source(source, unsafe=True)
    assert result.source == source
    # the product saved p for backward: TEN307's hazard too, but through .data TEN301 names it
    # (TEN307 yields_to TEN301 on the same write: one site, one finding)
    assert [(finding.code, finding.fix) for finding in result.remaining] == [("TEN301", None)]


@pytest.mark.parametrize("move, fixed", [
    ("m.to(torch.float32, copy=False)", "m.to(torch.float32, copy=True)"),  # said False: now True, once
    ("m.to(torch.float32, False, False)", "m.to(torch.float32, False, False).clone()"),  # copy may be the third
    ('m.to("cpu", torch.float32)', 'm.to("cpu", torch.float32, copy=True)'),
])
def test_a_move_fix_says_copy_once(move, fixed):
    source = f"import torch\ndef f(m: torch.Tensor):\n    x = {move}\n    m.add_(1)\n    return x\n"
    result = fix_source(source, unsafe=True)
    assert result.source.splitlines()[2] == f"    x = {fixed}" and not result.unstable
    compile(result.source, "<fixed>", "exec")


def test_a_fix_that_would_not_compile_is_dropped_not_written(monkeypatch):
    """A repeated keyword parses but does not compile: such a fix is dropped too."""
    from flake8_tensorcopy.rules import ten104

    broken = ten104.CloneThenDetach.query

    def query(self, model, site):
        broken(self, model, site)
        for report in site.reports:
            if report.code == self.code:
                import libcst as cst

                report.fix.replacement = cst.parse_expression("f(copy=True, copy=True)")

    monkeypatch.setattr(ten104.CloneThenDetach, "query", query)
    source = "import torch\ndef f(t: torch.nn.Parameter):\n    return t.clone().detach()\n"
    result = fix_source(source, unsafe=True)
    assert result.source == source and [finding.code for finding in result.remaining] == ["TEN104"]


def test_a_fix_that_would_not_parse_is_dropped_not_written(monkeypatch):
    from flake8_tensorcopy.rules import ten104

    broken = ten104.CloneThenDetach.query

    def query(self, model, site):
        broken(self, model, site)
        for report in site.reports:  # make the fix invalid Python: ``x.clone().detach()`` -> ``lambda``
            if report.code == self.code:
                import libcst as cst

                report.fix.replacement = cst.Name("lambda")

    monkeypatch.setattr(ten104.CloneThenDetach, "query", query)
    source = "import torch\ndef f(t: torch.nn.Parameter):\n    return t.clone().detach(), torch.tensor(t)\n"
    result = fix_source(source, unsafe=True)
    assert result.source == "import torch\ndef f(t: torch.nn.Parameter):\n    return t.clone().detach(), t.detach().clone()\n"
    assert [finding.code for finding in result.remaining] == ["TEN104"]
    assert not result.unstable


JOINED = "import torch\n\n\ndef f(extra, names):\n{body}\n"


@pytest.mark.parametrize(
    "body, copied, safe",
    [
        ("    for w in (torch.ones(2), extra):\n        return torch.tensor(w)", "w", False),
        ("    for w in [torch.ones(2), [1.0, 2.0]]:\n        return torch.tensor(w)", "w", False),
        ("    return [torch.tensor(v) for v in (torch.ones(2), extra)]", "v", False),
        ("    xs = [torch.ones(2), extra]\n    return torch.tensor(xs[1])", "xs[1]", False),
        ("    xs = (torch.ones(2), extra)\n    return torch.tensor(xs[-1])", "xs[-1]", False),
        ("    for _, w in enumerate((torch.ones(2), extra)):\n        return torch.tensor(w)", "w", False),
        ("    for w, _ in zip([torch.ones(2), extra], names):\n        return torch.tensor(w)", "w", False),
        ("    xs = [torch.ones(2)]\n    xs.append(extra)\n    return torch.tensor(xs[0])", "xs[0]", False),
        ("    xs = [torch.ones(2), torch.ones(2)]\n    xs[1] = extra\n    return torch.tensor(xs[0])", "xs[0]", False),
        ("    for w in (torch.ones(2), torch.zeros(2)):\n        return torch.tensor(w)", "w", True),
        ("    for _, w in enumerate([torch.ones(2), torch.zeros(2)]):\n        return torch.tensor(w)", "w", True),
        ("    for name, w in zip(names, (torch.ones(2), torch.zeros(2))):\n        return torch.tensor(w)", "w", True),
        ("    xs = [torch.ones(2), torch.zeros(2)]\n    return torch.tensor(xs[-1])", "xs[-1]", True),
        ("    a, b = torch.ones(2), extra\n    return torch.tensor(a)", "a", True),
    ],
)
def test_an_item_is_as_well_known_as_every_item_of_its_container(body, copied, safe):
    """``w`` of ``for w in (torch.ones(2), extra)`` is a tensor on one pass and ``extra`` on the
    other: where ``extra`` is a list, ``w.detach()`` raises. Safe only where every item is."""
    source = JOINED.format(body=body)
    fixed = source.replace(f"torch.tensor({copied})", f"{copied}.detach().clone()")
    assert fix_source(source).source == (fixed if safe else source)
    assert fix_source(source, unsafe=True).source == fixed


REBOUND = (
    "import sys\nimport torch\n\nscale = torch.ones(2)\n\n\ndef copy():\n    return torch.tensor(scale)\n\n\n"
    "def load(config):\n{rebinding}\n"
)


@pytest.mark.parametrize(
    "rebinding, safe",
    [
        ("    global scale\n    scale = config.scale", False),
        ("    global scale\n    for scale in config.scales:\n        pass", False),
        ("    globals()['scale'] = config.scale", False),
        ("    globals().update(scale=config.scale)", False),
        ("    globals().update(config.values)", False),
        ("    setattr(sys.modules[__name__], 'scale', config.scale)", False),
        ("    sys.modules[__name__].scale = config.scale", False),
        ("    globals().update({'scale': config.scale})", False),
        ("    setattr(config, 'scale', scale)", True),  # another object's attribute
        ("    globals().get('scale')", True),  # a read
        ("    global scale\n    return scale.sum()", True),  # declared, only read
        ("    scale = config.scale\n    return scale", True),  # a local of its own
        ("    globals()['other'] = config.scale", True),
    ],
)
def test_a_module_tensor_another_function_rebinds_is_weak(rebinding, safe):
    source = REBOUND.format(rebinding=rebinding)
    fixed = source.replace("torch.tensor(scale)", "scale.detach().clone()")
    assert fix_source(source).source == (fixed if safe else source)
    assert fix_source(source, unsafe=True).source == fixed


@pytest.mark.parametrize("declared, safe", [("nonlocal state", False), ("state = None", True)])
def test_an_enclosing_tensor_a_nested_function_rebinds_is_weak(declared, safe):
    source = (
        "import torch\n\n\ndef outer(saved):\n    state = torch.zeros(2)\n\n    def restore():\n"
        f"        {declared}\n        state = saved\n\n    restore()\n    return torch.tensor(state)\n"
    )
    fixed = source.replace("torch.tensor(state)", "state.detach().clone()")
    assert fix_source(source).source == (fixed if safe else source)


def test_a_tensor_annotation_stays_weak_evidence_where_every_caller_of_the_file_passes_a_tensor():
    """Callers in other modules may pass a list where the file's own pass tensors: TEN101's fix
    (``.detach().clone()``) stays unsafe, applied only with --unsafe-fixes."""
    source = (
        "import torch\n"
        "from torch import Tensor\n\n\n"
        "def as_float(values: Tensor):\n"
        "    return torch.tensor(values, dtype=torch.float32)\n\n\n"
        "def caller(x: Tensor):\n"
        "    return as_float(x.detach())\n"
    )
    assert fix_source(source).source == source
    assert "values.detach().clone()" in fix_source(source, unsafe=True).source
