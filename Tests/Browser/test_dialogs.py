"""Real-browser tests of the simulated screen's dialogs and text sizes: the alert laid out as an iOS alert (centred
title and message over full-width buttons), the purchase sheet as the App Store's (product, price, Apple Account,
one wide Confirm), both inside the viewport at every Dynamic Type size, in both languages, at 390 and 1280 px; and
the text sizes named and scaled as Dynamic Type's Body style (Apple Human Interface Guidelines, Typography,
"Dynamic Type sizes").

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh).
"""

import pytest
from selenium.webdriver.common.by import By

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    alert_is_modal, browser, chrome, normal_store, open_install, running_server, serious_violations, server, tile, wait)
from test_phone_screen import PHONE, emulate_phone
from test_purchase_sheet import sheet_is_gone, sheet_is_modal

# Body, in points, per Dynamic Type size (HIG, Typography, "Dynamic Type sizes"); one CSS pixel per point.
BODY_POINTS = {"xSmall": 14, "small": 15, "medium": 16, "large": 17, "xLarge": 19, "xxLarge": 21, "xxxLarge": 23,
               "AX1": 28, "AX2": 33, "AX3": 40, "AX4": 47, "AX5": 53}
SWITCH_NAMES = ["xSmall", "Small", "Medium", "Large (default)", "xLarge", "xxLarge", "xxxLarge",
                "AX1", "AX2", "AX3", "AX4", "AX5"]
LOCALES = (("en", "USA"), ("pt-BR", "BRA"))
WIDTHS = (PHONE, (1280, 900))


def set_width(driver, size):
    if size == PHONE:
        emulate_phone(driver)
    else:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": False})


def body_size(driver):
    return driver.execute_script("return parseFloat(getComputedStyle(document.querySelector('.phone')).fontSize);")


def test_text_sizes_are_named_as_dynamic_type_and_large_is_the_default(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    names = [link.text for link in browser.find_elements(By.CSS_SELECTOR, ".sizes a")]
    assert names == SWITCH_NAMES
    current = browser.find_element(By.CSS_SELECTOR, '.sizes a[aria-current="true"]')
    assert current.text == "Large (default)"
    assert body_size(browser) == 17


def test_each_text_size_sets_the_body_size_of_apples_dynamic_type_table(browser, server):
    install_id = server.create_install()
    measured = {}
    for size in BODY_POINTS:
        open_install(browser, server, install_id, f"?textSize={size}")
        measured[size] = body_size(browser)
    assert measured == {size: float(points) for size, points in BODY_POINTS.items()}
    # The earlier switch's names still work: Default is Large, Accessibility is AX5.
    open_install(browser, server, install_id, "?textSize=default")
    assert body_size(browser) == 17
    open_install(browser, server, install_id, "?textSize=accessibility")
    assert body_size(browser) == 53


DIALOG_JS = """
var dialog = document.getElementById(arguments[0]), r = dialog.getBoundingClientRect();
function box(element) { var b = element.getBoundingClientRect(); return {left: b.left, right: b.right, top: b.top, bottom: b.bottom, width: b.width}; }
return {box: box(dialog), clientWidth: dialog.clientWidth, innerWidth: innerWidth, innerHeight: innerHeight,
        scrollWidth: document.documentElement.scrollWidth, buttons: Array.from(dialog.querySelectorAll('button')).map(box),
        align: Array.from(dialog.querySelectorAll('h2, p')).map(function (e) { return getComputedStyle(e).textAlign; })};"""


def inside(found, where):
    box, problems = found["box"], []
    if found["innerWidth"] != where[0] or found["scrollWidth"] > found["innerWidth"]:
        problems.append(f"the page is {found['scrollWidth']} px wide in a {found['innerWidth']} px layout viewport")
    if box["left"] < 0 or box["right"] > found["innerWidth"] or box["top"] < 0 or box["bottom"] > found["innerHeight"]:
        problems.append(f"the dialog leaves the viewport: {box}")
    return problems


def each_width_and_size(browser, server, locale, storefront):
    """Opens a new install of `locale` at each width and each text size; yields the width and a label for problems."""
    install_id = server.create_install(locale=locale, storefront=storefront)
    for where in WIDTHS:
        set_width(browser, where)
        for size in BODY_POINTS:
            open_install(browser, server, install_id, f"?textSize={size}")
            yield where, f"{locale} {where[0]} px {size}"


@pytest.mark.parametrize("locale, storefront", LOCALES)  # one test per locale, so the workers share them
def test_the_alert_is_an_ios_alert_inside_the_viewport_at_every_size(browser, server, locale, storefront):
    problems = []
    server.store(purchaseOutcome="failed", purchaseError="networkError")
    for where, label in each_width_and_size(browser, server, locale, storefront):
        tile(browser, "coffee").click()
        wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
        found = browser.execute_script(DIALOG_JS, "alert")
        problems += [f"{label}: {p}" for p in inside(found, where)]
        if found["align"] != ["center", "center"]:
            problems.append(f"{label}: title and message are aligned {found['align']}, not centred")
        for button in found["buttons"]:
            if abs(button["width"] - found["clientWidth"]) > 1:
                problems.append(f"{label}: a button is {button['width']} px wide in a {found['clientWidth']} px alert")
        browser.find_element(By.CSS_SELECTOR, "dialog#alert button").click()
        wait(browser, lambda: not alert_is_modal(browser))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("locale, storefront", LOCALES)  # one test per locale, so the workers share them
def test_the_purchase_sheet_shows_product_price_account_and_a_wide_confirm_inside_the_viewport_at_every_size(browser, server, locale, storefront):
    problems = []
    server.store(skipPurchaseSheet=False)
    for where, label in each_width_and_size(browser, server, locale, storefront):
        tile(browser, "coffee").click()
        wait(browser, lambda: sheet_is_modal(browser), message="no modal purchase sheet")
        found = browser.execute_script(DIALOG_JS, "purchase-sheet")
        problems += [f"{label}: {p}" for p in inside(found, where)]
        for part in ("sheet-name", "sheet-price", "sheet-account", "sheet-confirm", "sheet-cancel"):
            if not browser.find_element(By.ID, part).is_displayed():
                problems.append(f"{label}: no {part}")
        confirm = browser.execute_script(
            "var sheet = document.getElementById('purchase-sheet'), style = getComputedStyle(sheet);"
            "return {confirm: document.getElementById('sheet-confirm').getBoundingClientRect().width,"
            " content: sheet.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)};")
        if abs(confirm["confirm"] - confirm["content"]) > 1:
            problems.append(f"{label}: Confirm is {confirm['confirm']} px wide in a {confirm['content']} px sheet")
        browser.find_element(By.ID, "sheet-cancel").click()
        wait(browser, lambda: sheet_is_gone(browser), message="Cancel did not close the sheet")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", ["large", "AX5"])
def test_the_alert_and_the_sheet_have_no_serious_accessibility_violations(browser, server, size):
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    emulate_phone(browser)
    server.store(skipPurchaseSheet=False)
    open_install(browser, server, install_id, f"?textSize={size}")
    tile(browser, "coffee").click()
    wait(browser, lambda: sheet_is_modal(browser), message="no modal purchase sheet")
    found, report = serious_violations(browser)
    assert not found, "sheet: " + report
    browser.find_element(By.ID, "sheet-cancel").click()
    wait(browser, lambda: sheet_is_gone(browser))
    server.store(skipPurchaseSheet=True, purchaseOutcome="failed", purchaseError="networkError")
    tile(browser, "coffee").click()
    wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
    found, report = serious_violations(browser)
    assert not found, "alert: " + report
