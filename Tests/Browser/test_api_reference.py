"""Real-browser tests of /api, the JSON API page the server renders from Public/api/openapi.json: a contents list of
the areas (the document's tags), every operation and schema a <details> closed by default (so the page is a fraction
of its open height), a link to one opens it without JavaScript; it fits a 390 px phone with everything open (long
paths, patterns and examples wrap or scroll inside themselves), and axe-core finds no violation at all.

Same server, browser and helpers as test_dashboard.py and test_phone_screen.py (run with Tests/Browser/run.sh).
"""

import json
import os

from selenium.webdriver.common.by import By

from test_dashboard import (AXE_JS, AXE_RUN_JS, browser, browser_without_javascript, chrome, running_server,  # noqa: F401
                            serious_violations, server)
from test_phone_screen import PHONE, check_page_fits, emulate_phone

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

OVERFLOW_JS = """
return Array.from(document.querySelectorAll('main *')).filter(function (e) {
  var r = e.getBoundingClientRect(); return r.right > innerWidth + 0.5;
}).map(function (e) { return e.tagName + ' ' + (e.textContent || '').slice(0, 60); }).slice(0, 5);"""

OPEN_OF_JS = "return document.getElementById(arguments[0]).closest('details').open;"


def document():
    with open(os.path.join(ROOT, "Public", "api", "openapi.json"), encoding="utf-8") as handle:
        return json.load(handle)


def all_violations(driver):
    """Every axe-core violation on the current page, whatever its impact, as a readable report."""
    driver.set_script_timeout(60)
    driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    results = driver.execute_async_script(AXE_RUN_JS)
    assert "error" not in results, f"axe-core failed: {results.get('error')}"
    return "\n".join(f"{v['id']} ({v['impact']}): {v['help']} at " + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"])
                     for v in results["violations"])


def test_the_api_page_fits_a_390_px_phone_with_every_section_open_without_axe_violations(browser, server):
    emulate_phone(browser)
    browser.get(server.base + "/api")
    problems = check_page_fits(browser, "/api")  # opens every <details> first
    beyond = browser.execute_script(OVERFLOW_JS)
    assert not problems, "\n".join(problems)
    assert not beyond, f"elements beyond the {PHONE[0]} px screen: {beyond}"
    report = all_violations(browser)
    assert not report, report


def test_every_operation_is_a_closed_section_of_its_area_and_the_contents_link_every_area(browser, server):
    operations = [(path, method, operation) for path, item in document()["paths"].items() for method, operation in item.items()
                  if isinstance(operation, dict) and "operationId" in operation]
    browser.get(server.base + "/api")
    contents = [a.get_attribute("href").split("#", 1)[1] for a in browser.find_elements(By.CSS_SELECTOR, ".api-contents a")]
    areas = [section.get_attribute("aria-labelledby") for section in browser.find_elements(By.CSS_SELECTOR, "section.api-group")]
    assert contents == areas, "the contents list every area, schemas last, in page order"
    for path, method, operation in operations:
        anchor = "op-" + operation["operationId"]
        assert browser.find_elements(By.ID, anchor), anchor
        assert browser.execute_script(OPEN_OF_JS, anchor) is False, f"{anchor} starts closed"
        summary = browser.execute_script("return document.getElementById(arguments[0]).closest('details').querySelector('summary').textContent;", anchor)
        assert method.upper() in summary and path in summary and operation["summary"] in summary, summary
    report = all_violations(browser)
    assert not report, report


def test_closed_sections_make_the_page_a_fraction_of_its_open_height(browser, server):
    browser.get(server.base + "/api")
    closed = browser.execute_script("return document.documentElement.scrollHeight;")
    browser.execute_script("document.querySelectorAll('details').forEach(function (d) { d.open = true; });")
    opened = browser.execute_script("return document.documentElement.scrollHeight;")
    assert closed * 4 < opened, f"closed {closed} px, open {opened} px"


def test_a_link_to_an_operation_or_a_schema_opens_it_without_javascript(browser_without_javascript, server):
    driver = browser_without_javascript
    driver.get(server.base + "/api#op-patchStore")
    assert driver.execute_script(OPEN_OF_JS, "op-patchStore") is True
    link = driver.find_element(By.CSS_SELECTOR, '#op-patchStore a[href="#schema-StoreSettings"]')
    link.click()
    assert driver.execute_script(OPEN_OF_JS, "schema-StoreSettings") is True
    assert driver.find_element(By.ID, "schema-StoreSettings").is_displayed()
