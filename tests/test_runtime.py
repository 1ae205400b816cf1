"""The runtime monitor: every premise scenario's flagged form reports its rule and its fixed
form reports nothing of it (CPU here; CUDA's TEN401/TEN402 where a GPU is present), clean
look-alikes stay silent, reports name their places and the static findings they confirm, and
the two faces (``tensorcopy-run``, ``pytest --tensorcopy``) work end to end."""

import json
import linecache
import runpy
import subprocess
import sys
import textwrap
from importlib import metadata

import pytest

from conftest import ROOT

torch = pytest.importorskip("torch")
harness = pytest.importorskip("flake8_tensorcopy.premises.harness")
from flake8_tensorcopy.fixer import fix_source  # noqa: E402
from flake8_tensorcopy.runtime.monitor import Monitor  # noqa: E402

# hazards no torch hook sees (the README lists why): a legacy constructor's alias (TEN103:
# torch.Tensor(t) reaches no mode), an ordering or a graph the program never misuses in torch's
# sight (TEN104, TEN105, TEN306), identity tests (TEN304), and the style codes (TEN901, TEN902)
NOT_OBSERVED = {"TEN103", "TEN104", "TEN105", "TEN304", "TEN306", "TEN901", "TEN902"}
# what a fixed form still shows, on purpose: TEN301's fix writes through .detach(), so backward
# now meets a saved tensor written in place (TEN307) and raises instead of computing wrong gradients
FIXED_FORM_SHOWS = {"TEN301": {"TEN307"}}
OBSERVED = [code for code in harness.available_codes() if code not in NOT_OBSERVED]


def _forms(code):
    """The scenario's flagged and fixed namespaces, their sources registered with linecache (the
    monitor reads a statement's source to tell a copy kept beside its receiver)."""
    scenario = harness.load(code)
    source = harness.scenario_source(code)
    fixed = fix_source(source, unsafe=True).source if scenario.fixed is not None else None
    for name, text in ((f"{code}_bad", source), (f"{code}_fixed", fixed)):
        if text is not None:
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)
    return scenario


def watched(namespace, device):
    """The codes the monitor reports while the scenario runs and its hazard check reads the result."""
    with Monitor(static=False) as monitor:
        try:
            result = namespace["scenario"](device)
        except Exception as error:  # the hazard of some rules is an exception
            result, error_seen = None, error
        else:
            error_seen = None
        namespace["hazard"](harness.Outcome(result, error_seen, []), device)
    return {report.code for report in monitor.reports}


def _premise(code, device):
    scenario = _forms(code)
    if torch.device(device).type not in scenario.devices:
        pytest.skip(f"{code}: the hazard exists only on {', '.join(scenario.devices)}")
    assert code in watched(scenario.bad, device), f"{code} on {device}: the monitor missed the flagged form"
    if scenario.fixed is not None:
        assert watched(scenario.fixed, device) == FIXED_FORM_SHOWS.get(code, set())


@pytest.mark.parametrize("code", OBSERVED)
def test_premise_confirmed_on_cpu(code):
    _premise(code, "cpu")


CUDA_REASON = harness.devices("cuda")["cuda"]


@pytest.mark.skipif(CUDA_REASON is not None, reason=CUDA_REASON or "")
@pytest.mark.parametrize("code", ["TEN401", "TEN402", "TEN203", "TEN205", "TEN307"])
def test_premise_confirmed_on_cuda(code):
    _premise(code, "cuda")


def test_every_rule_is_observed_or_listed():
    assert set(OBSERVED) | NOT_OBSERVED == set(harness.available_codes())


def run_source(tmp_path, source: str, static: bool = False, monitor=None) -> Monitor:
    """Run ``source`` as a file under the monitor (its statements readable, as a user's are)."""
    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    monitor = monitor or Monitor(static=static)
    with monitor:
        exec(code, {"__name__": "program"})
    return monitor


@pytest.mark.parametrize("source", [
    # a name rebound to the move's result: no second holder
    "import torch\nx = torch.ones(3)\nx = x.to('cpu')\nx.add_(1)\nprint(x.sum())\n",
    # consumed on the spot: the clone is the copy
    "import torch\nw = torch.ones(3)\nb = w.detach().clone()\nw.add_(1)\nprint(b.sum())\n",
    # a write through .data used on the spot is meant to change w
    "import torch\nw = torch.ones(3, requires_grad=True)\nw.data.mul_(2)\nprint(w.sum())\n",
    # a view meant as a view (view(), slicing) written through on purpose
    "import torch\nx = torch.ones(2, 3)\nv = x.view(-1)\nv.add_(1)\nprint(x.sum())\n",
    # a reshaped temporary: its base lives only inside the view
    "import torch\nx = torch.arange(6.0).reshape(2, 3)\nx.mul_(2)\nprint(x.sum())\n",
    # a dtype change copies
    "import numpy as np\nimport torch\na = np.zeros(3, dtype=np.uint8)\nt = torch.from_numpy(a).float()\nt.add_(1)\n",
    # the array is written, but the tensor is never read again
    "import torch\nt = torch.ones(3)\narr = t.numpy().copy()\narr *= 2\nprint(t.sum())\n",
    # NaN is unequal to itself, not a write
    "import torch\nt = torch.full((3,), float('nan'))\narr = t.numpy()\nprint(t.sum(), arr)\n",
])
def test_clean_programs_stay_silent(tmp_path, source):
    assert run_source(tmp_path, source).reports == []


def test_report_names_its_places_and_confirms_the_static_finding(tmp_path):
    monitor = run_source(tmp_path, """\
        import torch

        w = torch.ones(3, requires_grad=True)
        backup = w.detach()
        with torch.no_grad():
            w.add_(1)
        print(backup.sum())
        """, static=True)
    (report,) = monitor.reports
    path = str(tmp_path / "program.py")
    assert (report.code, report.where.path, report.where.line) == ("TEN203", path, 7)
    assert {label: loc.line for label, loc in report.related.items()} == {"made": 4, "written": 6}
    assert report.confirms == [f"{path}:4 TEN203"] or report.confirms == [f"{_relative(path)}:4 TEN203"]
    assert "use `.detach().clone()`" in report.render()


def _relative(path):
    import os

    return os.path.relpath(path)


def test_a_helper_in_another_module_is_seen_at_the_users_line(tmp_path):
    (tmp_path / "helpers.py").write_text("def row(x):\n    return x[0]\n", encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        monitor = run_source(tmp_path, """\
            import torch
            import helpers

            x = torch.zeros(2, 3)
            first = helpers.row(x)
            x.add_(1)
            print(first.sum())
            """)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("helpers", None)
    (report,) = monitor.reports
    assert report.code == "TEN204"
    assert report.related["made"].path.endswith("helpers.py") and report.where.line == 7


@pytest.mark.parametrize("engine", ["calling thread", "device thread"])
def test_saved_tensor_write_still_raises_as_torch_would(tmp_path, request, engine):
    """The hooks replace torch's own version check: the monitor must raise where torch did, and
    name the write, the save and the backward call wherever autograd's engine runs backward."""
    if engine == "device thread":
        request.getfixturevalue("backward_in_a_device_thread")
    monitor = Monitor(static=False)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run_source(tmp_path, """\
            import torch
            x = torch.ones(3, requires_grad=True)
            y = torch.sigmoid(x)
            y.mul_(2)
            y.sum().backward()
            """, monitor=monitor)
    (report,) = monitor.reports
    assert (report.code, report.where.line) == ("TEN307", 4)
    assert {label: loc.line for label, loc in report.related.items()} == {"saved": 3, "backward": 5}
    assert monitor.failures == {}


def test_tensorcopy_run_writes_versioned_json_and_keeps_the_exit_status(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""\
        import sys
        import numpy as np
        import torch

        t = torch.zeros(3)
        arr = t.numpy()
        arr += 1
        print(float(t.sum()))
        sys.exit(int(sys.argv[1]))
        """), encoding="utf-8")
    out = tmp_path / "reports.json"
    done = subprocess.run([sys.executable, "-m", "flake8_tensorcopy.runtime.command", "--json", str(out),
                           str(script), "3"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 3, done.stderr
    assert done.stdout == "3.0\n"
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["schema_version"] == 1 and document["tool"]["name"] == "tensorcopy-run"
    assert document["monitor_errors"] == []
    (report,) = document["reports"]
    assert (report["code"], report["line"], report["related"]["made"]["line"]) == ("TEN201", 8, 6)
    assert "tensorcopy: 1 hazard(s) seen: TEN201 x1" in done.stderr


def test_pytest_plugin_is_registered_and_strict_fails_the_hazardous_test(tmp_path):
    assert "flake8_tensorcopy.runtime.pytest_plugin" in {
        entry.value for entry in metadata.entry_points(group="pytest11")}
    (tmp_path / "test_model.py").write_text(textwrap.dedent("""\
        import torch

        def test_snapshot():
            w = torch.ones(3)
            snap = w.detach()
            w.add_(1)
            assert snap.sum() == 6

        def test_clean():
            w = torch.ones(3)
            snap = w.detach().clone()
            w.add_(1)
            assert snap.sum() == 3
        """), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--tensorcopy-strict", "-q", str(tmp_path)], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "1 failed, 1 passed" in done.stdout
    assert "test_snapshot" in done.stdout and "TEN203" in done.stdout
    assert "tensorcopy: 1 hazard(s) seen: TEN203 x1" in done.stdout


def test_calls_that_write_nothing_and_alias_nothing_walk_no_stack(monkeypatch):
    """The cost: a call that writes nothing, makes no view and meets no live alias is let
    through without looking up where it came from (no frame is classified; the hooks on tensors
    saved for backward, which place each saved tensor, are off here)."""
    from flake8_tensorcopy.runtime import frames

    layer = torch.nn.Linear(4, 4)
    x = torch.ones(2, 4)
    classified = []
    original = frames.is_library
    monkeypatch.setattr(frames, "is_library", lambda path: classified.append(path) or original(path))
    with Monitor(static=False, saved=False) as monitor:
        y = torch.relu(layer(x)).sum() + x.is_complex()
        classified_quiet = len(classified)
        view = x.t()
        x.add_(1)
    assert classified_quiet == 0
    assert classified  # a view and a write are still placed
    assert monitor.reports == [] and float(y) == pytest.approx(float(torch.relu(layer(x - 1)).sum()))
    assert view.shape == (4, 2)


@pytest.fixture
def backward_in_a_device_thread(monkeypatch):
    """Run autograd's engine as it runs for CUDA tensors: in a thread of its own, whose stack holds
    no Python frame above the hooks it calls (for CPU tensors it runs in the calling thread)."""
    import _thread
    import functools
    import itertools

    run_backward = torch.autograd.Variable._execution_engine.run_backward

    def in_a_device_thread(outputs, *args, **kwargs):
        done, raised = _thread.allocate_lock(), []
        done.acquire()
        # builtins only, so that the thread runs no Python frame: the backward, then the release
        steps = itertools.chain(itertools.starmap(functools.partial(run_backward, **kwargs), [(outputs, *args)]),
                                itertools.starmap(done.release, [()]))
        unraisable = sys.unraisablehook
        sys.unraisablehook = lambda failure: raised.append(failure.exc_value)
        try:
            _thread.start_new_thread(list, (steps,))
            while not raised and not done.acquire(timeout=0.01):
                pass
        finally:
            sys.unraisablehook = unraisable
        if raised:
            raise raised[0]
        return ()

    monkeypatch.setattr(torch.autograd, "_engine_run_backward", in_a_device_thread)


def test_a_write_through_data_is_placed_where_backward_was_called_from_a_device_thread(
        tmp_path, backward_in_a_device_thread):
    monitor = run_source(tmp_path, """\
        import torch
        x = torch.ones(3, requires_grad=True)
        y = torch.exp(x)
        y.data.mul_(2)
        y.sum().backward()
        """)
    (report,) = monitor.reports
    assert (report.code, report.where.line) == ("TEN301", 4)
    assert {label: loc.line for label, loc in report.related.items()} == {"saved": 3, "backward": 5}
    assert monitor.failures == {}


def _program_result(tmp_path, monitor=None):
    namespace = {"__name__": "program"}
    source = """\
        import numpy as np
        import torch
        w = torch.ones(3, requires_grad=True)
        y = torch.sigmoid(w * 2)
        snapshot = w.detach()
        arr = torch.from_numpy(np.arange(3.0))
        y.sum().backward()
        result = (w.grad + snapshot + arr).tolist()
        """
    path = tmp_path / "program.py"
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    if monitor is None:
        exec(code, namespace)
    else:
        with monitor:
            exec(code, namespace)
    return namespace["result"]


@pytest.mark.parametrize("broken", ["before", "after", "_Saved.__init__", "_kept"])
def test_a_monitor_error_is_recorded_and_the_program_runs_as_it_would_unwatched(tmp_path, monkeypatch, broken):
    from flake8_tensorcopy.runtime import monitor as module

    unwatched = _program_result(tmp_path)

    def broken_step(*args, **kwargs):
        raise LookupError("a monitor bug")

    owner, _, name = broken.rpartition(".")
    monkeypatch.setattr(getattr(module, owner) if owner else module, name, broken_step)
    monitor = Monitor(static=False)
    assert _program_result(tmp_path, monitor) == unwatched
    assert monitor.failures and all(error.startswith("LookupError: a monitor bug") for error in monitor.failures)


def test_a_saved_tensor_written_where_the_monitor_does_not_look_still_raises(tmp_path):
    """A torch mode is per thread: a write made in another thread goes unseen, and backward must
    still raise as torch would (the hooks replace torch's own version check)."""
    monitor = Monitor(static=False)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        run_source(tmp_path, """\
            import threading
            import torch
            x = torch.ones(3, requires_grad=True)
            y = torch.sigmoid(x)
            writer = threading.Thread(target=y.mul_, args=(2,))
            writer.start()
            writer.join()
            y.sum().backward()
            """, monitor=monitor)
    (report,) = monitor.reports
    assert (report.code, report.where.line, report.related["saved"].line) == ("TEN307", 8, 4)


@pytest.fixture
def copies_in_flight(monkeypatch):
    """Fake a device whose non_blocking copies from pinned memory run later (CUDA's): the meta
    device stands for it, every CPU tensor counts as pinned, and its synchronize is a no-op."""
    from flake8_tensorcopy.runtime import monitor as module

    monkeypatch.setattr(module, "ASYNCHRONOUS_DEVICES", frozenset({"meta"}))
    monkeypatch.setattr(torch.Tensor, "is_pinned", lambda tensor: tensor.device.type == "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda device=None: None)


@pytest.mark.parametrize("write, expected", [
    ("buffer.add_(1)", [("TEN402", 6)]),  # seen as it happens
    ("staging[:] = 2", [("TEN402", 7)]),  # through NumPy: seen where torch next uses the memory
    ("print(staging.sum())", []),  # a read
])
def test_a_pinned_source_written_while_its_copy_runs_is_ten402_whichever_side_writes(
        tmp_path, copies_in_flight, write, expected):
    monitor = run_source(tmp_path, f"""\
        import torch
        buffer = torch.zeros(4)
        staging = buffer.numpy()  # a pinned buffer's array is how it is filled: no TEN201
        staging[:] = 1
        sent = buffer[:2].to("meta", non_blocking=True)
        {write}
        again = buffer.to("meta", non_blocking=True)
        """)
    assert [(report.code, report.where.line) for report in monitor.reports] == expected
    assert all(report.related["copied"].line == 5 for report in monitor.reports)


def test_a_pinned_source_written_through_numpy_is_seen_at_the_synchronization(tmp_path, copies_in_flight):
    monitor = run_source(tmp_path, """\
        import torch
        buffer = torch.zeros(4)
        staging = buffer.numpy()
        sent = buffer[:2].to("meta", non_blocking=True)
        staging[:] = 2
        torch.cuda.synchronize()
        staging[:] = 3
        torch.cuda.synchronize()
        """)
    assert [(report.code, report.where.line, report.related["copied"].line) for report in monitor.reports] == [
        ("TEN402", 6, 4)]


def test_a_pinned_source_holding_nan_is_not_taken_for_rewritten(tmp_path, copies_in_flight):
    monitor = run_source(tmp_path, """\
        import torch
        buffer = torch.full((4,), float("nan"))
        sent = buffer.to("meta", non_blocking=True)
        again = buffer.to("meta", non_blocking=True)
        """)
    assert monitor.reports == []


def test_setting_a_tensor_attribute_reads_none_of_its_values(tmp_path):
    """``w.grad = None`` (what ``zero_grad`` does) is no read of ``w``: an alias written before it
    is observed by nothing there."""
    path = tmp_path / "setter.py"
    path.write_text("import torch\nw = torch.ones(3, requires_grad=True)\nsnap = w.detach()\nsnap.mul_(2.0)\n"
                    "w.grad = None\n", encoding="utf-8")
    with Monitor(static=False) as monitor:
        runpy.run_path(str(path), run_name="__main__")
    assert monitor.reports == []
