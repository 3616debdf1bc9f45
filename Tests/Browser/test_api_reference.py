"""Real-browser tests of /api, the JSON API page the server renders from Public/api/openapi.json: it fits a
390 px phone (long paths, patterns and examples wrap or scroll inside themselves), has 0 serious or critical
axe-core violations, and works without JavaScript (its contents links are plain anchors).

Same server, browser and helpers as test_dashboard.py and test_phone_screen.py (run with Tests/Browser/run.sh).
"""

import json
import os

from selenium.webdriver.common.by import By

from test_dashboard import browser, chrome, running_server, serious_violations, server  # noqa: F401
from test_phone_screen import PHONE, check_page_fits, emulate_phone

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

OVERFLOW_JS = """
return Array.from(document.querySelectorAll('main *')).filter(function (e) {
  var r = e.getBoundingClientRect(); return r.right > innerWidth + 0.5;
}).map(function (e) { return e.tagName + ' ' + (e.textContent || '').slice(0, 60); }).slice(0, 5);"""


def test_the_api_page_fits_a_390_px_phone_without_serious_axe_violations(browser, server):
    emulate_phone(browser)
    browser.get(server.base + "/api")
    problems = check_page_fits(browser, "/api")
    beyond = browser.execute_script(OVERFLOW_JS)
    assert not problems, "\n".join(problems)
    assert not beyond, f"elements beyond the {PHONE[0]} px screen: {beyond}"


def test_every_operation_of_the_document_is_linked_from_the_contents(browser, server):
    with open(os.path.join(ROOT, "Public", "api", "openapi.json"), encoding="utf-8") as handle:
        document = json.load(handle)
    ids = {operation["operationId"] for item in document["paths"].values() for operation in item.values()
           if isinstance(operation, dict) and "operationId" in operation}
    browser.get(server.base + "/api")
    links = {a.get_attribute("href").split("#", 1)[1]
             for a in browser.find_elements(By.CSS_SELECTOR, ".api-contents a") if "#op-" in a.get_attribute("href")}
    assert links == {f"op-{operation}" for operation in ids}
    for anchor in links:
        assert browser.find_elements(By.ID, anchor), anchor
    violations, report = serious_violations(browser)
    assert not violations, report
