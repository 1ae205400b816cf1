"""What an editor and a notebook cost: the language server's warm re-lint of a 500-line torch
file (target: under 50 ms), and a 100-cell notebook against the same code as one ``.py``
file (target: at most 1.2 times the file's time).

    python benchmarks/server.py [--corpus benchmarks/.cache/corpus] [--repeat 30] [--no-notebook]
                                [--profile server.prof]

The server is driven by pygls's own LSP client over stdio, as an editor drives it: each
measure is from sending a change and a save (a save lints at once, without the debounce delay)
to receiving the diagnostics of that version (wall time), and the CPU the server spent per
run (Linux's /proc: on a shared machine the wall time mostly measures the others). Two files:
the corpus's 500-line torch file (lightning's ``finetuning.py``, the editor case of
``speed.md``; ``python benchmarks/corpus.py`` fetches the corpus) and a generated 500-line
module with a finding every 18 lines, where every statement holds one (the worst case: nothing
is left out of the parse or of positions). Three edits, each version a new text: a comment
appended at the end, a line typed into the function body nearest the middle of the file, and
one typed into the body nearest the middle that LibCST parses (the server then parses that
top-level statement again). The lint alone is measured in this process too, with the
document's ``ModuleCache`` as the server keeps it and without.

The notebook and the same code as one file are processed in this process by
``tensorcopy-fix``'s own ``process_file`` (``--no-fix`` and ``--check`` modes, no cache),
alternately, so the noise of a shared machine falls on both; their CPU time is compared.
Medians of ``--repeat`` runs after three warm-ups. Results: ``benchmarks/results/server.md``.
"""

import argparse
import ast
import asyncio
import itertools
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from lsprotocol import types
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.big_module import module_text  # noqa: E402
from flake8_tensorcopy.cli import options_for, process_file  # noqa: E402
from flake8_tensorcopy.config import Config  # noqa: E402
from flake8_tensorcopy.engine import _without_quiet_bodies  # noqa: E402
from flake8_tensorcopy.incremental import ModuleCache  # noqa: E402
from flake8_tensorcopy.rules import ALL_RULES  # noqa: E402
from flake8_tensorcopy.scan import scan_statements  # noqa: E402
from flake8_tensorcopy.server import lint_text  # noqa: E402

WARM_UPS = 3
DEFAULT_CORPUS = Path(__file__).resolve().parent / ".cache" / "corpus"
REAL_FILE = Path("lightning/lightning/pytorch/callbacks/finetuning.py")


def server_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) the server process has used so far (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def appended_comment(text: str) -> Callable[[int], str]:
    """Versions of ``text`` with a comment appended at its end (the easy edit)."""
    return lambda version: text + f"# edit {version}\n"


def line_in_function(text: str, parsed: bool) -> Callable[[int], str]:
    """Versions of ``text`` with a line typed into the body of the function nearest the middle
    of the file; with ``parsed``, of the one nearest the middle whose body LibCST parses (a
    body no rule wants is left out of the parse: an edit there is cheaper)."""
    tree = ast.parse(text)
    blanked = _without_quiet_bodies(text, tree, scan_statements(tree), ALL_RULES).splitlines()
    lines = text.splitlines(keepends=True)
    candidates = [
        statement for function in ast.walk(tree) if type(function) in (ast.FunctionDef, ast.AsyncFunctionDef)
        for statement in function.body[1:] if type(statement) in (ast.Assign, ast.Expr, ast.Return)
        and statement.lineno == statement.end_lineno
        and (not parsed or blanked[statement.lineno - 1] == lines[statement.lineno - 1].rstrip("\n"))
    ]
    middle = len(lines) / 2
    chosen = min(candidates, key=lambda statement: abs(statement.lineno - middle))
    before, after = "".join(lines[:chosen.lineno - 1]), "".join(lines[chosen.lineno - 1:])
    indent = " " * chosen.col_offset
    return lambda version: f"{before}{indent}edited = {version}\n{after}"


EDITS = [("a comment appended", appended_comment), ("a line typed in the function body nearest the middle",
                                                    lambda text: line_in_function(text, parsed=False)),
         ("a line typed in a function body LibCST parses", lambda text: line_in_function(text, parsed=True))]


async def server_relint_times(path: Path, edited: Callable[[int], str], repeat: int, profile=None) -> tuple:
    """(seconds from a change and save to that version's diagnostics, each run; the server's
    mean CPU seconds per run; the number of findings)."""
    text = edited(0)
    client = LanguageClient("benchmark", "1")
    published = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.version] = (time.perf_counter(), len(params.diagnostics))

    profiled = ("-m", "cProfile", "-o", str(profile)) if profile else ()
    await client.start_io(sys.executable, *profiled, "-m", "flake8_tensorcopy.server")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                         root_uri=path.parent.as_uri()))
    client.initialized(types.InitializedParams())
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=0, text=text)))
    times = []
    cpu_before = 0.0
    for version in range(1, repeat + WARM_UPS + 1):
        if version == WARM_UPS + 1:
            cpu_before = server_cpu_seconds(client._server.pid)
        started = time.perf_counter()
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text=edited(version))]))  # a new text each time
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
        while version not in published:
            await asyncio.sleep(0.0005)
        if version > WARM_UPS:
            times.append(published[version][0] - started)
    cpu = (server_cpu_seconds(client._server.pid) - cpu_before) / repeat
    findings = published[repeat + WARM_UPS][1]
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return times, cpu, findings


def versions_linted(edited: Callable[[int], str], directory: Path, modules) -> Callable[[], None]:
    """A function linting the next version of the text at each call, as the server does."""
    versions = itertools.count(1)
    return lambda: lint_text(edited(next(versions)), directory, modules=modules)


def in_process_times(functions, repeat: int, clock=time.process_time) -> list:
    """CPU seconds of each function per run (the machine's load barely moves them), the
    functions called in turn (warm-ups first)."""
    for _ in range(WARM_UPS):
        for function in functions:
            function()
    times = [[] for _ in functions]
    for _ in range(repeat):
        for function, taken in zip(functions, times):
            started = clock()
            function()
            taken.append(clock() - started)
    return times


def notebook_of(text: str, cells: int) -> dict:
    """``text`` split before top-level definitions into ``cells`` code cells (the last one
    takes the rest), as Jupyter would save it; every tenth cell starts with a shell line (which
    the ``.py`` file has not)."""
    chunks = re.split(r"(?m)^(?=class |def )", text)
    chunks = chunks[: cells - 1] + ["".join(chunks[cells - 1:])]
    chunks = [("!nvidia-smi\n" if number % 10 == 0 else "") + chunk for number, chunk in enumerate(chunks)]
    return {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                       "source": re.findall(r"[^\n]*\n|[^\n]+$", chunk)} for chunk in chunks],
            "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}


def notebook_lines(root: Path, repeat: int) -> list:
    """The 100-cell notebook against the same code as one file, reported and checked."""
    code = module_text(1300)
    notebook = notebook_of(code, 100)
    (root / "nb.ipynb").write_text(json.dumps(notebook, indent=1) + "\n", encoding="utf-8")
    (root / "nb.py").write_text(code, encoding="utf-8")
    lines = []
    for mode, flag in (("report", "--no-fix"), ("check", "--check")):
        options = options_for(Config(), mode)
        book_times, file_times = in_process_times(
            [lambda: process_file(str(root / "nb.ipynb"), options), lambda: process_file(str(root / "nb.py"), options)],
            repeat)
        ratio = statistics.median(book_times) / statistics.median(file_times)
        lines.append(f"- {flag}: {len(notebook['cells'])}-cell notebook {milliseconds(book_times)}, the same "
                     f"{code.count(chr(10))} lines as one file {milliseconds(file_times)} (CPU): **{ratio:.2f}x**")
    return lines


def milliseconds(times: list) -> str:
    return f"{statistics.median(times) * 1000:.1f} ms (min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--no-notebook", action="store_true", help="measure the server only")
    parser.add_argument("--profile", type=Path, help="run the server under cProfile, writing its profile here "
                        "(the last server's: warm-ups and start included)")
    arguments = parser.parse_args()
    lines = []
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        real = arguments.corpus / REAL_FILE
        files = [(f"`{REAL_FILE.name}` (corpus)", real.read_text(encoding="utf-8"))] if real.is_file() else []
        files.append(("generated, a finding every 18 lines", module_text(500)))
        for name, text in files:
            path = root / "model.py"
            path.write_text(text, encoding="utf-8")
            lines.append(f"- {name}, {text.count(chr(10))} lines:")
            for edit_name, edits in EDITS:
                edited = edits(text)
                times, cpu, findings = asyncio.run(server_relint_times(path, edited, arguments.repeat,
                                                                       arguments.profile))
                whole, incremental = in_process_times([versions_linted(edited, root, None),
                                                       versions_linted(edited, root, ModuleCache())], arguments.repeat)
                lines.append(f"  - {edit_name}, {findings} findings: warm server, change + save to diagnostics "
                             f"{milliseconds(times)} wall, **{cpu * 1000:.1f} ms of the server's CPU** per re-lint; "
                             f"the lint alone (`server.lint_text`) {milliseconds(incremental)} CPU, "
                             f"{milliseconds(whole)} without its ModuleCache")
        if not arguments.no_notebook:
            lines.extend(notebook_lines(root, max(3, arguments.repeat // 3)))
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f}; {arguments.repeat} runs each ({max(3, arguments.repeat // 3)} for the "
          f"notebook) after {WARM_UPS} warm-ups")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
