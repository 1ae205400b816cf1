#!/usr/bin/env bash
# The checks that need a GPU, as one run on a lent CUDA machine (see README, "On a GPU").
# Run from the repository root with the linter's wheels in .whl/ (libcst, flake8, pyflakes,
# pycodestyle, mccabe for that machine's Python) and a copy of ../shared/incidents in .incidents/.
# Every table goes to $OUT (or ./device-out); each step has its own time limit.
set -u
out="${OUT:-device-out}"; mkdir -p "$out"
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/pkg . >/dev/null || exit 1
export PYTHONPATH=/tmp/pkg:/tmp/site PATH=/tmp/pkg/bin:$PATH
step() { local name=$1 limit=$2; shift 2; echo "== $name"; timeout "$limit" "$@" >"$out/$name.txt" 2>&1; echo "rc=$?" >>"$out/$name.txt"; tail -n 4 "$out/$name.txt"; }
{ nvidia-smi -L; python3 -c "import torch, sys; print(sys.version.split()[0], torch.__version__, torch.cuda.get_device_name())"; } >"$out/device.txt" 2>&1
cat "$out/device.txt"
step premises 50 python3 -m flake8_tensorcopy.premises.command --device all --markdown
step pytest_cuda 110 python3 -m pytest -o addopts="" -p no:cacheprovider -q -n 8 -m "not slow" tests/test_premises.py tests/test_runtime.py tests/test_asynchronous.py tests/test_knowledge_runtime.py tests/test_runtime_documented.py
step torch_tables 40 python3 -m pytest -o addopts="" -p no:cacheprovider -q tests/test_torch_tables.py
step monitor_cost 50 python3 benchmarks/monitor.py --device cuda --rounds 3
step runtime_blind 120 python3 benchmarks/runtime_incidents.py --checks benchmarks/blind/checks --device cuda --counts-only --jobs 12
step runtime_incidents 170 python3 benchmarks/runtime_incidents.py --checks .incidents/checks --device cuda --markdown --jobs 12
