"""Real-browser tests of the install page's live channel: server-sent events from
`GET /installs/{id}/events` (https://html.spec.whatwg.org/multipage/server-sent-events.html) bring
every change to the install to an open page within a second, and replace a notice that no longer
holds; a browser without `EventSource` polls `GET /installs/{id}/live` instead.

Same server, browser and helpers as test_dashboard.py (run with Tests/Browser/run.sh -k live).
"""

from selenium.webdriver.common.by import By

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    browser, chrome, hearts, normal_store, notice_text, open_install, server, tile, wait)

PENDING = "Your purchase is waiting for approval."
THANK_YOU = "Thank you for the tip!"


def app_state(driver):
    return driver.execute_script("var s = document.getElementById('app-state'); return s ? s.textContent : null;")


def timeline_kinds(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#timeline code')).map(function (c) { return c.textContent; });")


def test_an_approval_in_a_second_window_updates_the_first_within_a_second_pending_notice_gone(browser, server):
    server.store(purchaseOutcome="pending")
    install_id = server.create_install()
    open_install(browser, server, install_id)
    first = browser.current_window_handle
    tile(browser, "coffee").click()
    wait(browser, lambda: (notice_text(browser) or "").startswith(PENDING), message="no pending notice after the tap")
    assert hearts(browser) == 0

    browser.switch_to.new_window("window")
    browser.get(server.base + "/store")
    row = browser.find_element(By.XPATH, f"//tr[td/a[@href='/installs/{install_id}']][.//button[text()='Approve']]")
    row.find_element(By.XPATH, ".//button[text()='Approve']").click()
    wait(browser, lambda: "flash=approved" in browser.current_url, message="the approval was not answered")

    browser.switch_to.window(first)
    wait(browser, lambda: hearts(browser) == 1, timeout=1, message="the heart did not reach the first window within a second")
    wait(browser, lambda: (notice_text(browser) or "").startswith(THANK_YOU), timeout=1,
         message=f"the pending notice was not replaced by the thank-you: {notice_text(browser)!r}")
    assert PENDING not in browser.find_element(By.ID, "feedback").text
    assert "askToBuy.approved" in timeline_kinds(browser)
    rows = browser.execute_script("return document.querySelectorAll('#ledger tbody tr').length;")
    assert rows == 1, f"the ledger shows {rows} rows after the approval"


def test_a_decline_elsewhere_is_invisible_to_the_app_its_pending_notice_stays_until_the_next_launch(browser, server):
    server.store(purchaseOutcome="pending")
    install_id = server.create_install()
    open_install(browser, server, install_id)
    tile(browser, "snack").click()
    wait(browser, lambda: (notice_text(browser) or "").startswith(PENDING), message="no pending notice after the tap")
    browser.switch_to.new_window("window")
    browser.get(server.base + "/store")
    browser.find_element(By.XPATH, f"//tr[td/a[@href='/installs/{install_id}']]//button[text()='Decline']").click()
    wait(browser, lambda: "flash=declined" in browser.current_url, message="the decline was not answered")
    browser.switch_to.window(browser.window_handles[0])
    wait(browser, lambda: "askToBuy.declined" in timeline_kinds(browser), timeout=1,
         message="the store's decline did not reach the timeline")
    assert (notice_text(browser) or "").startswith(PENDING), "Apple never tells the app of a decline: the notice stays"
    assert hearts(browser) == 0
    server.api("POST", f"/api/installs/{install_id}/launch", {})
    wait(browser, lambda: notice_text(browser) is None, timeout=2, message="the next launch did not clear the notice")


def test_stopping_the_app_elsewhere_updates_its_state_and_timeline_within_a_second(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    assert app_state(browser) == "running"
    server.api("POST", f"/api/installs/{install_id}/stop", {})
    wait(browser, lambda: app_state(browser) == "stopped", timeout=1, message="the page still says running")
    wait(browser, lambda: "stop" in timeline_kinds(browser), timeout=1, message="the timeline did not show the stop")


def test_without_eventsource_the_page_polls_for_the_same_fragments(browser, server):
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "delete window.EventSource;"})
    try:
        install_id = server.create_install()
        open_install(browser, server, install_id)
        assert browser.execute_script("return typeof window.EventSource;") == "undefined"
        server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
        wait(browser, lambda: hearts(browser) == 1, message="the poll did not bring the heart")
        server.api("POST", f"/api/installs/{install_id}/stop", {})
        wait(browser, lambda: app_state(browser) == "stopped", message="the poll did not bring the stopped state")
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
