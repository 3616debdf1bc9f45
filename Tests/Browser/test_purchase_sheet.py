"""Real-browser tests of the simulated App Store purchase sheet: with JavaScript a modal <dialog> (Confirm, Cancel,
Escape), without it a page of its own; while it is open every tip button stays disabled and a second purchase
answers 409; Cancel is a silent `.userCancelled`.

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh). Each test turns the
sheet on (`skipPurchaseSheet: false`); the shared fixture skips it for the tests written before it.
"""

import json
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    THANK_YOU, alert_is_modal, browser, browser_without_javascript, chrome, hearts, normal_store, notice_text,
    open_install, press, running_server, serious_violations, server, tile, tiles_disabled, wait)

COFFEE = "com.example.tipjar.tip.coffee"


def sheet_is_modal(driver):
    return driver.execute_script(
        "var s = document.getElementById('purchase-sheet'); return !!s && s.open && s.matches(':modal');")


def sheet_is_gone(driver):
    return driver.execute_script("return !document.getElementById('purchase-sheet');")


def purchase_status(server, install_id):
    """The HTTP status of a JSON purchase (409 while a purchase, the sheet included, is open)."""
    request = urllib.request.Request(f"{server.base}/api/installs/{install_id}/purchases",
                                     data=json.dumps({"productID": COFFEE}).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def open_sheet(driver, server, install_id, tier="coffee"):
    """Shows the install with the sheet turned on, taps a tip and waits for the modal sheet."""
    server.store(skipPurchaseSheet=False)
    open_install(driver, server, install_id)
    tap_for_sheet(driver, tier)


def tap_for_sheet(driver, tier):
    tile(driver, tier).click()
    wait(driver, lambda: sheet_is_modal(driver), message="no modal purchase sheet")


def timeline_text(driver):
    return driver.find_element(By.XPATH, "//section[h2[normalize-space()='Timeline']]").text


def test_tap_a_tip_then_confirm_on_the_sheet(browser, server):
    install_id = server.create_install()
    open_sheet(browser, server, install_id, "coffee")
    sheet = browser.find_element(By.ID, "purchase-sheet")
    assert browser.find_element(By.ID, "sheet-name").text == "Coffee"
    assert browser.find_element(By.ID, "sheet-price").text == "$0.99"
    assert browser.find_element(By.ID, "sheet-account").text == server.install(install_id)["accountID"]
    assert "App Store" in sheet.text
    assert tiles_disabled(browser) == [True, True, True], "a tile is usable while the sheet is open"
    assert browser.switch_to.active_element == browser.find_element(By.ID, "sheet-confirm"), "focus is not on Confirm"
    assert purchase_status(server, install_id) == 409, "a second purchase while the sheet is open"
    assert hearts(browser) == 0
    browser.find_element(By.ID, "sheet-confirm").click()
    wait(browser, lambda: hearts(browser) == 1, message="no heart after Confirm")
    assert notice_text(browser) == THANK_YOU
    wait(browser, lambda: sheet_is_gone(browser), message="the sheet stayed")
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False], message="tiles stayed disabled")
    wait(browser, lambda: browser.switch_to.active_element == tile(browser, "coffee"),
         message="focus did not return to the tapped tile")
    assert server.install(install_id)["hearts"] == 1


def test_cancel_on_the_sheet_is_silent_and_frees_the_buttons(browser, server):
    install_id = server.create_install()
    open_sheet(browser, server, install_id, "snack")
    browser.execute_script("window.__marker = 1;")
    browser.find_element(By.ID, "sheet-cancel").click()
    wait(browser, lambda: sheet_is_gone(browser), message="Cancel did not close the sheet")
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False], message="tiles stayed disabled")
    assert not alert_is_modal(browser), "Cancel showed an alert"
    assert notice_text(browser) is None, "Cancel showed a notice"
    assert hearts(browser) == 0
    # Escape is the sheet's Cancel too.
    tap_for_sheet(browser, "lunch")
    press(browser, Keys.ESCAPE)
    wait(browser, lambda: sheet_is_gone(browser), message="Escape did not cancel the sheet")
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False], message="tiles stayed disabled")
    assert browser.execute_script("return window.__marker;") == 1, "the page was reloaded"
    assert server.api("GET", f"/api/transactions?installID={install_id}")["transactions"] == []
    open_install(browser, server, install_id)
    assert timeline_text(browser).count("because the user cancelled") == 2


def test_a_reload_while_the_sheet_is_open_shows_it_again(browser, server):
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    open_sheet(browser, server, install_id, "coffee")
    assert browser.find_element(By.ID, "sheet-confirm").text == "Confirmar"
    assert browser.find_element(By.ID, "sheet-price").text == "R$ 0,99"  # WebDriver reads the no-break space as a space
    open_install(browser, server, install_id)
    wait(browser, lambda: sheet_is_modal(browser), message="the open sheet was not shown after the reload")
    assert tiles_disabled(browser) == [True, True, True]
    browser.find_element(By.ID, "sheet-cancel").click()
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False], message="tiles stayed disabled")


def test_the_sheet_without_javascript_is_a_page_with_confirm_and_cancel(browser_without_javascript, server):
    browser = browser_without_javascript
    install_id = server.create_install()
    server.store(skipPurchaseSheet=False)
    browser.get(f"{server.base}/installs/{install_id}?load=now")
    tile(browser, "coffee").click()
    wait(browser, lambda: browser.current_url.endswith(f"/installs/{install_id}/purchase-sheet"), message="no sheet page")
    assert browser.find_element(By.ID, "sheet-name").text == "Coffee"
    assert browser.find_element(By.ID, "sheet-price").text == "$0.99"
    assert purchase_status(server, install_id) == 409
    browser.find_element(By.ID, "sheet-confirm").click()
    wait(browser, lambda: "feedback=purchased" in browser.current_url, message="no redirect after Confirm")
    assert hearts(browser) == 1
    assert notice_text(browser) == THANK_YOU
    tile(browser, "snack").click()
    wait(browser, lambda: browser.current_url.endswith("/purchase-sheet"), message="no sheet page")
    browser.find_element(By.ID, "sheet-cancel").click()
    wait(browser, lambda: "feedback=cancelled" in browser.current_url, message="no redirect after Cancel")
    assert browser.find_elements(By.CSS_SELECTOR, "dialog#alert") == [], "Cancel showed an alert"
    assert notice_text(browser) is None
    assert all(not disabled for disabled in tiles_disabled(browser))
    assert server.install(install_id)["hearts"] == 1


def test_the_sheet_has_no_serious_accessibility_violations(browser, server):
    install_id = server.create_install()
    open_sheet(browser, server, install_id, "coffee")
    found, report = serious_violations(browser)
    assert not found, "sheet dialog: " + report
    browser.get(f"{server.base}/installs/{install_id}/purchase-sheet")
    found, report = serious_violations(browser)
    assert not found, "sheet page: " + report
