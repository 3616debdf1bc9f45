"""pytest hook for the real-browser tests: keeps each phase's report on the test item, so the
browser fixtures in test_dashboard.py can save a screenshot when the test failed."""

import pytest


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    report = yield
    setattr(item, "report_" + report.when, report)
    return report
