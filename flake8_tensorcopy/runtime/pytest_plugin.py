"""``pytest --tensorcopy``: run the tests under the monitor; each test's hazards are listed at the
end of the run, and ``--tensorcopy-strict`` fails a test that shows one. Without the option the
plugin does nothing and imports neither torch nor numpy."""

import pytest

STRICT_MESSAGE = "tensorcopy: the test showed {count} hazard(s):\n{reports}"


def pytest_addoption(parser):
    group = parser.getgroup("tensorcopy", "tensor copy/alias hazards seen at run time")
    group.addoption("--tensorcopy", action="store_true", help="run the tests under the tensorcopy monitor")
    group.addoption("--tensorcopy-strict", action="store_true",
                    help="run under the monitor and fail a test that shows a hazard (implies --tensorcopy)")


def pytest_configure(config):
    if config.getoption("tensorcopy") or config.getoption("tensorcopy_strict"):
        config.pluginmanager.register(_Watch(config.getoption("tensorcopy_strict")), "tensorcopy-watch")


class _Watch:
    def __init__(self, strict: bool):
        from flake8_tensorcopy.runtime.monitor import Monitor

        self.strict = strict
        self.monitor = Monitor()
        self.by_test = {}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        first = len(self.monitor.reports)
        self.monitor.start()
        try:
            yield
        finally:
            self.monitor.stop()
        seen = self.monitor.reports[first:]
        if seen:
            self.by_test[item.nodeid] = seen
            if self.strict:
                rendered = "\n".join(report.render() for report in seen)
                pytest.fail(STRICT_MESSAGE.format(count=len(seen), reports=rendered), pytrace=False)

    def pytest_terminal_summary(self, terminalreporter):
        from flake8_tensorcopy.runtime.command import failures_note, summary

        terminalreporter.section("tensorcopy")
        for nodeid, reports in self.by_test.items():
            terminalreporter.write_line(nodeid)
            for report in reports:
                terminalreporter.write_line("  " + report.render().replace("\n", "\n  "))
        note = failures_note(self.monitor.failures)
        if note:
            terminalreporter.write_line(note)
        terminalreporter.write_line(summary(self.monitor.reports))
