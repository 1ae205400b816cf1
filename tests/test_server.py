"""``tensorcopy-lsp`` driven as an editor drives it: the server in a subprocess, JSON-RPC
messages (LSP's framing) over its stdin and stdout, exact diagnostics and edits asserted."""

import json
import os
import queue
import subprocess
import sys
import threading
import time

import libcst as cst
import pytest

from conftest import FIXTURES, checkout_env, expectations, mismatches, run_tensorcopy_fix
from flake8_tensorcopy import server
from flake8_tensorcopy.engine import SourceError
from flake8_tensorcopy.output import rule_url
from flake8_tensorcopy.server import (CANNOT_ANALYSE, DEBOUNCE_SECONDS, Configurations, apply_change, edit_for_fixed,
                                      lint_text)

pytest.importorskip("pygls.lsp.server", reason="the language server needs pygls 2 (pip install '.[server]')")

TIMEOUT = 30
DEBOUNCE_SLACK = 1.0  # seconds without a message that show no further diagnostics are coming

TORCH_COPY = "import torch\n\n\nt = torch.ones(3)\nt_copied = torch.tensor(t)\n"
COPY_MESSAGE = "torch.tensor() on tensor 't' copies it detached and warns; use t.detach().clone()"


class Client:
    """A minimal LSP client: requests wait for their response, notifications are queued."""

    def __init__(self, cwd, capabilities=None):
        self.process = subprocess.Popen([sys.executable, "-m", "flake8_tensorcopy.server"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        env=checkout_env())
        self.incoming = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self.capabilities = self.request("initialize", {"processId": None, "rootUri": (cwd).as_uri(),
                                                        "capabilities": capabilities or {}})["capabilities"]
        self.notify("initialized", {})

    def _read(self):
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.incoming.put(json.loads(stream.read(length)))

    def _send(self, message):
        body = json.dumps(dict(jsonrpc="2.0", **message)).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method, params):
        self._send({"method": method, "params": params})

    def request(self, method, params):
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        message = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in message, message["error"]
        return message["result"]

    def wait(self, wanted, timeout=TIMEOUT):
        """The first message ``wanted`` accepts; the others before it are dropped."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.incoming.get(timeout=max(deadline - time.monotonic(), 0.01))
            if wanted(message):
                return message

    def diagnostics(self, uri, timeout=TIMEOUT):
        message = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                            and m["params"]["uri"] == uri, timeout)
        return message["params"]

    def quiet(self, seconds=DEBOUNCE_SLACK):
        """Every message that arrives within ``seconds``."""
        messages = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                messages.append(self.incoming.get(timeout=max(deadline - time.monotonic(), 0.01)))
            except queue.Empty:
                break
        return messages

    def open(self, path, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "python",
                                                              "version": version, "text": text}})

    def change(self, path, text, version):
        self.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": version},
                                               "contentChanges": [{"text": text}]})

    def code_actions(self, path, start_line, end_line, only=None):
        context = {"diagnostics": [], **({"only": only} if only else {})}
        return self.request("textDocument/codeAction", {
            "textDocument": {"uri": path.as_uri()},
            "range": {"start": {"line": start_line, "character": 0}, "end": {"line": end_line, "character": 0}},
            "context": context,
        })

    def close(self):
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.process.wait(timeout=TIMEOUT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process.stdin.close()
            self.process.stdout.close()
            self.process.stderr.close()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """One server for the module (starting one costs about two seconds); each test opens its
    own documents in its own directory."""
    started = Client(tmp_path_factory.mktemp("workspace"))
    yield started
    started.close()
    assert started.process.returncode == 0


def span(diagnostic):
    where = diagnostic["range"]
    return (where["start"]["line"], where["start"]["character"], where["end"]["line"], where["end"]["character"])


def apply(text, edits):
    """``text`` with LSP TextEdits applied (ASCII text: characters are UTF-16 units)."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position):
        return offsets[position["line"]] + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = text[:offset(edit["range"]["start"])] + edit["newText"] + text[offset(edit["range"]["end"]):]
    return text


def test_diagnostics_on_open_carry_code_range_message_and_link(client, tmp_path):
    path = tmp_path / "model.py"
    client.open(path, TORCH_COPY)
    published = client.diagnostics(path.as_uri())
    assert published["version"] == 1
    assert published["diagnostics"] == [{
        "range": {"start": {"line": 4, "character": 11}, "end": {"line": 4, "character": 26}},
        "severity": 2, "code": "TEN101", "codeDescription": {"href": rule_url("TEN101")},
        "source": "tensorcopy", "message": COPY_MESSAGE,
    }]
    assert rule_url("TEN101") == "https://github.com/flake8-tensorcopy/flake8-tensorcopy#ten101"


def test_a_fixtures_diagnostics_are_its_markers_and_fix_all_gives_its_golden(client, tmp_path):
    text = (FIXTURES / "TEN104.py").read_text(encoding="utf-8")
    path = tmp_path / "TEN104.py"
    client.open(path, text)
    diagnostics = client.diagnostics(path.as_uri())["diagnostics"]
    found = [(d["range"]["start"]["line"] + 1, d["code"], d["range"]["start"]["character"] + 1, d["message"])
             for d in diagnostics]
    assert found and mismatches(found, expectations(text)) == []
    (fix_all,) = client.code_actions(path, 0, 0, only=["source.fixAll"])
    assert fix_all["title"] == "Fix all safe tensorcopy findings"
    assert fix_all["kind"] == "source.fixAll.tensorcopy"
    (edits,) = fix_all["edit"]["changes"].values()
    assert apply(text, edits) == (FIXTURES / "TEN104.fixed.py").read_text(encoding="utf-8")


def test_quick_fix_of_one_finding_and_the_unsafe_label(client, tmp_path):
    path = tmp_path / "train.py"
    text = ("import torch\n\n\ndef step(w: torch.Tensor):\n    backup = w.detach()\n    w.mul_(2)\n"
            "    return backup, torch.tensor(w)\n")
    client.open(path, text)
    codes = [(d["code"], span(d)) for d in client.diagnostics(path.as_uri())["diagnostics"]]
    assert codes == [("TEN203", (4, 13, 4, 23)), ("TEN101", (6, 19, 6, 34))]
    unsafe, = client.code_actions(path, 4, 4, only=["quickfix"])
    assert unsafe["title"] == "TEN203: use w.detach().clone() (unsafe fix: it changes what the code shares on purpose)"
    assert unsafe["kind"] == "quickfix" and unsafe["isPreferred"] is False
    assert unsafe["edit"] == {"changes": {path.as_uri(): [{
        "range": {"start": {"line": 4, "character": 13}, "end": {"line": 4, "character": 23}},
        "newText": "w.detach().clone()"}]}}
    safe, = client.code_actions(path, 6, 6, only=["quickfix"])
    assert (safe["title"], safe["isPreferred"]) == ("TEN101: use w.detach().clone()", True)
    assert safe["edit"]["changes"][path.as_uri()] == [{
        "range": {"start": {"line": 6, "character": 19}, "end": {"line": 6, "character": 34}},
        "newText": "w.detach().clone()"}]
    (fix_all,) = client.code_actions(path, 0, 0, only=["source"])
    assert apply(text, fix_all["edit"]["changes"][path.as_uri()]) == text.replace("torch.tensor(w)",
                                                                                  "w.detach().clone()")


def test_fix_all_of_a_source_too_deep_to_rewrite_is_no_edit_and_keeps_the_diagnostics(client, tmp_path):
    """Linting never walks the 325-level attribute chain deeply, rewriting the module does: the
    fix-all request answers no action (not an internal error) and the finding stays, with its
    own quick fix."""
    path = tmp_path / "deep.py"
    text = ("import torch\n\n\ndef f():\n    t = torch.ones(3)\n    return torch.tensor(t)\n\n\n"
            "chain = t" + ".real" * 325 + "\n")
    client.open(path, text)
    published = client.diagnostics(path.as_uri())["diagnostics"]
    assert [(d["code"], span(d)) for d in published] == [("TEN101", (5, 11, 5, 26))]
    assert client.code_actions(path, 0, 0, only=["source.fixAll"]) == []
    (quick_fix,) = client.code_actions(path, 5, 5, only=["quickfix"])
    assert quick_fix["title"] == "TEN101: use t.detach().clone()"
    assert [m for m in client.quiet() if m.get("method") == "textDocument/publishDiagnostics"] == []


def test_changes_are_debounced_and_the_last_version_is_linted(client, tmp_path):
    path = tmp_path / "model.py"
    client.open(path, "import torch\n")
    assert client.diagnostics(path.as_uri())["diagnostics"] == []
    for version in (2, 3, 4):
        client.change(path, TORCH_COPY.replace("t_copied", f"t_copied_{version}"), version)
    published = client.diagnostics(path.as_uri())
    assert (published["version"], [span(d) for d in published["diagnostics"]]) == (4, [(4, 13, 4, 28)])
    assert [m for m in client.quiet() if m.get("method") == "textDocument/publishDiagnostics"] == []


def test_save_lints_at_once_and_close_clears(client, tmp_path):
    path = tmp_path / "model.py"
    client.open(path, "import torch\n")
    client.diagnostics(path.as_uri())
    client.change(path, TORCH_COPY, 2)
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    published = client.diagnostics(path.as_uri(), timeout=0.2)  # before the debounce delay ends
    assert [d["code"] for d in published["diagnostics"]] == ["TEN101"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
    assert client.diagnostics(path.as_uri())["diagnostics"] == []


def published(messages):
    return [m["params"] for m in messages if m.get("method") == "textDocument/publishDiagnostics"]


def test_a_buffer_that_does_not_parse_keeps_the_last_diagnostics_and_gets_no_edit(client, tmp_path):
    """Nothing is published while the buffer does not parse (neither an empty list nor a
    TEN001 alone), so the editor keeps showing the last findings until it parses again."""
    path = tmp_path / "model.py"
    client.open(path, TORCH_COPY)
    assert len(client.diagnostics(path.as_uri())["diagnostics"]) == 1
    client.change(path, TORCH_COPY + "def broken(:\n", 2)
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    assert published(client.quiet(DEBOUNCE_SECONDS + DEBOUNCE_SLACK)) == []
    assert client.code_actions(path, 0, 10) == []
    client.change(path, TORCH_COPY + "def mended():\n    pass\n", 3)
    again = client.diagnostics(path.as_uri())
    assert (again["version"], [d["code"] for d in again["diagnostics"]]) == (3, ["TEN101"])


def test_a_source_only_libcst_cannot_parse_is_unparsed_not_a_ten001(tmp_path, monkeypatch):
    """What Python parses and LibCST does not (a syntax newer than LibCST) is mid-edit too:
    a lone TEN001 would wipe the findings shown; a limit the engine sets stays a TEN001."""
    def refuse(error):
        def lint(*args, **kwargs):
            raise SourceError("line 1, column 0: refused") from error
        return lint

    syntax = cst.ParserSyntaxError("refused", lines=["x = 1\n"], raw_line=1, raw_column=0)
    monkeypatch.setattr(server, "lint_source", refuse(syntax))
    linted = lint_text("x = 1\n", tmp_path)
    assert (linted.unparsed, linted.problem, linted.rows) == (True, None, [])
    monkeypatch.setattr(server, "lint_source", refuse(RecursionError()))
    linted = lint_text("x = 1\n", tmp_path)
    assert (linted.unparsed, linted.problem) == (False, CANNOT_ANALYSE.format("line 1, column 0: refused"))


def test_a_save_of_unchanged_text_publishes_nothing_new(client, tmp_path):
    path = tmp_path / "model.py"
    client.open(path, TORCH_COPY)
    client.diagnostics(path.as_uri())
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    client.change(path, TORCH_COPY, 2)  # a new version of the same text is linted (after the debounce)
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    assert [params["version"] for params in published(client.quiet(DEBOUNCE_SECONDS + DEBOUNCE_SLACK))] == [2]


def test_the_server_syncs_text_incrementally_and_no_notebooks_as_the_readme_says(client):
    assert client.capabilities["textDocumentSync"]["change"] == 2  # TextDocumentSyncKind.Incremental
    assert "notebookDocumentSync" not in client.capabilities


def test_incremental_changes_are_applied_in_utf16_units_on_lsps_lines(client, tmp_path):
    """The server asks for incremental sync; a change's range counts UTF-16 units (the emoji
    is two) on lines that end at CR, LF or CRLF only (the form feed starts no line)."""
    path = tmp_path / "model.py"
    client.open(path, "import torch\n\x0c\nt = torch.ones(3)\r\nlabel = '\U0001F600'; y = t\n")
    assert client.diagnostics(path.as_uri())["diagnostics"] == []
    client.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 3, "character": 18}, "end": {"line": 3, "character": 19}},
         "text": "torch.tensor(t)"},
        {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
         "text": "z = torch.tensor(t)\n"},
    ]})
    changed = client.diagnostics(path.as_uri())
    assert changed["version"] == 2
    assert [(d["code"], span(d)) for d in changed["diagnostics"]] == [("TEN101", (3, 18, 3, 33)),
                                                                      ("TEN101", (4, 4, 4, 19))]
    (fix_all,) = client.code_actions(path, 0, 0, only=["source.fixAll"])
    (edit,) = fix_all["edit"]["changes"][path.as_uri()]
    assert (edit["range"]["start"], edit["newText"]) == (
        {"line": 3, "character": 0}, "label = '\U0001F600'; y = t.detach().clone()\nz = t.detach().clone()\n")


@pytest.mark.parametrize("start, end, text, units, expected", [
    ((0, 7), (0, 7), "X", "utf-16", "a = '\U0001F600X'\nb\n"),  # after the emoji's two units
    ((0, 9), (0, 9), "X", "utf-8", "a = '\U0001F600X'\nb\n"),  # ... its four bytes
    ((0, 6), (0, 6), "X", "utf-32", "a = '\U0001F600X'\nb\n"),  # ... one code point
    ((0, 50), (1, 0), "", "utf-16", "a = '\U0001F600'b\n"),  # past a line's end: its end
    ((9, 0), (9, 0), "c\n", "utf-16", "a = '\U0001F600'\nb\nc\n"),  # past the last line: the end
])
def test_apply_change_counts_the_clients_units(start, end, text, units, expected):
    assert apply_change("a = '\U0001F600'\nb\n", start, end, text, units) == expected


@pytest.mark.parametrize("source, expected", [
    ("a\r\nb\r\nc", "a\r\nb\r\nX"), ("a\rb\rc", "a\rb\rX"), ("a\x0cz\nb\u2028z\nc", "a\x0cz\nb\u2028z\nX"),
])
def test_apply_change_ends_lines_where_lsp_does(source, expected):
    assert apply_change(source, (2, 0), (2, 1), "X") == expected


def test_configuration_comes_from_the_documents_pyproject(client, tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.tensorcopy]\nignore = ["TEN101"]\n', encoding="utf-8")
    path = project / "src" / "model.py"
    client.open(path, TORCH_COPY)
    assert client.diagnostics(path.as_uri())["diagnostics"] == []
    (project / "pyproject.toml").write_text('[tool.tensorcopy]\nignroe = ["TEN101"]\n', encoding="utf-8")
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
    (problem,) = client.diagnostics(path.as_uri())["diagnostics"]
    assert (problem["code"], problem["severity"], span(problem)) == ("TEN001", 1, (0, 0, 0, 0))
    assert problem["message"].endswith("[tool.tensorcopy] unknown key 'ignroe' (did you mean 'ignore'?)")


def test_columns_are_counted_in_utf16_units_as_lsp_asks(client, tmp_path):
    path = tmp_path / "model.py"
    client.open(path, "import torch\n\nt = torch.ones(3)\nlabel, y = '\U0001F600', torch.tensor(t)\n")
    (diagnostic,) = client.diagnostics(path.as_uri())["diagnostics"]
    assert span(diagnostic) == (3, 17, 3, 32)  # 16 characters before the call, the emoji two units


def test_without_pygls_the_command_says_what_to_install(tmp_path):
    run = subprocess.run([sys.executable, "-c", "import sys; sys.modules['pygls'] = sys.modules['lsprotocol'] = None; "
                          "from flake8_tensorcopy.server import main; sys.exit(main([]))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT, env=checkout_env())
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == ("tensorcopy-lsp: lsprotocol is missing: pip install '.[server]' in a checkout, or pip install "
                          "'flake8-tensorcopy[server] @ git+https://github.com/flake8-tensorcopy/flake8-tensorcopy'\n")


@pytest.mark.parametrize("source, fixed, edit", [
    ("a\nb\nc\n", "a\nB\nc\n", ((1, 0), (2, 0), "B\n")),
    ("a\nb", "a\nB", ((1, 0), (1, 1), "B")),  # the last line has no newline: the range ends inside it
    ("a\r\nb\r\n", "a\r\nb2\r\nc\r\n", ((1, 0), (2, 0), "b2\r\nc\r\n")),
    ("same\n", "same\n", None),
    ("x = torch.tensor(t)\n", "", None),  # never an edit that empties the buffer
    ("x = torch.tensor(t)\n", "\n\n", None),
])
def test_the_fix_all_edit_is_the_smallest_run_of_lines_and_never_empties_the_buffer(source, fixed, edit):
    assert edit_for_fixed(source, fixed) == edit


def test_diagnostics_and_quick_fixes_of_edited_versions_are_what_tensorcopy_fix_reports(client, tmp_path):
    """The server parses an edited buffer incrementally (only the top-level statements that
    changed): each version's diagnostics and each quick fix's edits are those of
    ``tensorcopy-fix --format json`` on the same text; a version that does not parse gets none."""
    path = tmp_path / "TEN101.py"
    text = (FIXTURES / "TEN101.py").read_text(encoding="utf-8")
    body = "    loss.backward()\n"  # a line of a function body: the edits go after it
    assert text.count(body) == 1
    versions = [text, text.replace(body, body + "    pending = 1\n"), text.replace(body, body + "    pending = (\n"),
                text.replace(body, body + "    pending = torch.tensor(loss)\n")]
    client.open(path, versions[0])
    for version, source in enumerate(versions, start=1):
        if version > 1:
            client.change(path, source, version)
            client.notify("textDocument/didSave", {"textDocument": {"uri": path.as_uri()}})
        if version != 3:
            published = client.diagnostics(path.as_uri())
            assert published["version"] == version
        (tmp_path / "same.py").write_text(source, encoding="utf-8")
        run = run_tensorcopy_fix(["--no-cache", "--no-fix", "--output-format", "json", "same.py"], tmp_path)
        if version == 3:  # nothing published: the editor keeps version 2's
            assert run.returncode == 2 and published["version"] == 2 and client.code_actions(path, 0, 400) == []
            continue
        expected = json.loads(run.stdout)["findings"]
        assert [(d["code"], span(d), d["message"]) for d in published["diagnostics"]] == [
            (f["code"], (f["line"] - 1, f["column"] - 1, f["end_line"] - 1, f["end_column"] - 1), f["message"])
            for f in expected]
        assert len(expected) == len(expectations(text)) + (version == 4)  # the fixture's findings, and the added one
        fixable = [f for f in expected if f["fix"] is not None]
        assert fixable
        for finding in fixable[-4:]:  # the last ones: after the edited line, moved by it
            (action,) = [a for a in client.code_actions(path, finding["line"] - 1, finding["line"] - 1, ["quickfix"])
                         if span(a["diagnostics"][0]) == (finding["line"] - 1, finding["column"] - 1,
                                                          finding["end_line"] - 1, finding["end_column"] - 1)]
            assert action["edit"]["changes"][path.as_uri()] == [{
                "range": {"start": {"line": e["line"] - 1, "character": e["column"] - 1},
                          "end": {"line": e["end_line"] - 1, "character": e["end_column"] - 1}},
                "newText": e["content"]} for e in finding["fix"]["edits"]]


def test_a_directorys_options_are_read_again_only_when_its_pyproject_changes(tmp_path):
    (tmp_path / "src").mkdir()
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.tensorcopy]\nignore = ["TEN101"]\n', encoding="utf-8")
    configurations = Configurations()

    def codes():
        return {rule.code for rule in configurations.options(tmp_path / "src").rules}

    first = configurations.options(tmp_path / "src")
    assert "TEN101" not in codes() and "TEN102" in codes()
    assert configurations.options(tmp_path / "src") is first  # unchanged: not read again
    pyproject.write_text('[tool.tensorcopy]\nignore = ["TEN101", "TEN102"]\n', encoding="utf-8")  # its size
    assert "TEN102" not in codes()
    pyproject.write_text('[tool.tensorcopy]\nignore = ["TEN101", "TEN103"]\n', encoding="utf-8")
    os.utime(pyproject, ns=(pyproject.stat().st_atime_ns, pyproject.stat().st_mtime_ns + 10**9))  # its mtime
    assert ("TEN102" in codes(), "TEN103" in codes()) == (True, False)
    (tmp_path / "src" / "pyproject.toml").write_text("", encoding="utf-8")  # a nearer one
    assert "TEN101" in codes()
    (tmp_path / "src" / "pyproject.toml").write_text('[tool.tensorcopy]\nselect = ["TEN8"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="unknown code or prefix: TEN8"):
        configurations.options(tmp_path / "src")
