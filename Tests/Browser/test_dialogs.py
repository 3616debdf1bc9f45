"""Real-browser tests of the simulated screen's dialogs and text sizes: the alert laid out as an iOS alert (centred
title and message over full-width buttons), the purchase sheet as the App Store's (product, price, Apple Account,
one wide Confirm), both inside the viewport at every Dynamic Type size, in both languages, at 390 and 1280 px; and
the text sizes named and scaled as Dynamic Type's Body style (Apple Human Interface Guidelines, Typography,
"Dynamic Type sizes").

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh).
"""

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    alert_is_modal, browser, browser_without_javascript, chrome, normal_store, open_install, running_server, serious_violations, server, tile, wait)
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


# Where the sheet's parts are when it opens: the Apple Account's first line inside the sheet's scrolling middle and the
# viewport, and whether that middle has more below (data-more, the visible cue that it scrolls).
SHEET_OPENED_JS = """
var body = document.getElementById('sheet-body'), account = document.getElementById('sheet-account');
var range = document.createRange(); range.selectNodeContents(account);
var line = range.getClientRects()[0], b = body.getBoundingClientRect();
var cue = getComputedStyle(body).boxShadow;
return {line: {top: line.top, bottom: line.bottom}, body: {top: b.top, bottom: b.bottom}, innerHeight: innerHeight,
        scrolls: body.scrollHeight > body.clientHeight + 1, more: body.hasAttribute('data-more'),
        cue: cue !== 'none', focusable: body.tabIndex === 0};"""


@pytest.mark.parametrize("locale, storefront", LOCALES)
def test_the_sheet_shows_the_apple_account_when_it_opens_and_a_cue_while_it_scrolls(browser, server, locale, storefront):
    """Who pays is part of what the App Store's sheet asks the person to confirm, so it is on the screen when the
    sheet opens at every text size; where the sheet's middle scrolls, a shadow over its bottom edge says so until its
    end is reached (WCAG 2.2, 1.3.2 Meaningful Sequence: product, price, account)."""
    problems = []
    server.store(skipPurchaseSheet=False)
    for where, label in each_width_and_size(browser, server, locale, storefront):
        tile(browser, "coffee").click()
        wait(browser, lambda: sheet_is_modal(browser), message="no modal purchase sheet")
        found = browser.execute_script(SHEET_OPENED_JS)
        line, body = found["line"], found["body"]
        if not (body["top"] - 1 <= line["top"] and line["bottom"] <= body["bottom"] + 1
                and line["bottom"] <= found["innerHeight"]):
            problems.append(f"{label}: the Apple Account's first line {line} is outside the sheet's visible middle {body}")
        if found["scrolls"] != found["more"] or found["more"] != found["cue"]:
            problems.append(f"{label}: the middle scrolls={found['scrolls']} but is marked more={found['more']},"
                            f" shadow={found['cue']}")
        if found["scrolls"]:
            if not found["focusable"]:
                problems.append(f"{label}: the scrolling middle cannot take the keyboard focus")
            browser.execute_script("var b = document.getElementById('sheet-body'); b.scrollTop = b.scrollHeight;")
            wait(browser, lambda: not browser.execute_script(SHEET_OPENED_JS)["cue"],
                 message=f"{label}: the cue stayed at the end of the sheet")
        browser.find_element(By.ID, "sheet-cancel").click()
        wait(browser, lambda: sheet_is_gone(browser), message="Cancel did not close the sheet")
    assert not problems, "\n".join(problems)


# The focus ring's inner edge (the border box grown by outline-offset) and the text's box: the ring never crosses
# the word when it holds the text, and stays inside the dialog, which clips what overflows it.
RING_JS = """
var button = document.getElementById(arguments[0]), style = getComputedStyle(button);
var box = button.getBoundingClientRect(), offset = parseFloat(style.outlineOffset), width = parseFloat(style.outlineWidth);
var range = document.createRange(); range.selectNodeContents(button); var text = range.getBoundingClientRect();
var dialog = button.closest('dialog, .sheet-page').getBoundingClientRect();
return {style: style.outlineStyle, inner: {left: box.left - offset, right: box.right + offset, top: box.top - offset,
        bottom: box.bottom + offset}, outer: {left: box.left - offset - width, right: box.right + offset + width},
        text: {left: text.left, right: text.right, top: text.top, bottom: text.bottom},
        dialog: {left: dialog.left, right: dialog.right}, focused: document.activeElement === button};"""


def ring_problems(found, label):
    inner, text, problems = found["inner"], found["text"], []
    if found["style"] == "none":
        problems.append(f"{label}: no focus ring")
    if not (inner["left"] <= text["left"] and text["right"] <= inner["right"]
            and inner["top"] <= text["top"] and text["bottom"] <= inner["bottom"]):
        problems.append(f"{label}: the focus ring {inner} crosses the word {text}")
    if found["outer"]["left"] < found["dialog"]["left"] or found["outer"]["right"] > found["dialog"]["right"]:
        problems.append(f"{label}: the focus ring {found['outer']} leaves the sheet {found['dialog']}")
    return problems


@pytest.mark.parametrize("locale, storefront", LOCALES)
def test_cancels_focus_ring_is_drawn_outside_its_word_at_every_size(browser, server, locale, storefront):
    """WCAG 2.2, 2.4.7 Focus Visible and 1.4.11 Non-text Contrast: the ring around Cancel reads as a ring, not as a
    line through "Cancel"."""
    problems = []
    server.store(skipPurchaseSheet=False)
    for where, label in each_width_and_size(browser, server, locale, storefront):
        tile(browser, "coffee").click()
        wait(browser, lambda: sheet_is_modal(browser), message="no modal purchase sheet")
        cancel = browser.find_element(By.ID, "sheet-cancel")
        for _ in range(4):  # from Confirm (autofocus) back to Cancel, by the keyboard, so :focus-visible applies
            if browser.switch_to.active_element == cancel:
                break
            ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        found = browser.execute_script(RING_JS, "sheet-cancel")
        if not found["focused"]:
            problems.append(f"{label}: Shift-Tab never reached Cancel")
        problems += ring_problems(found, label)
        cancel.click()
        wait(browser, lambda: sheet_is_gone(browser), message="Cancel did not close the sheet")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", ["large", "AX5"])
def test_without_javascript_the_sheet_page_shows_the_apple_account_on_the_first_screen(browser_without_javascript, server, size):
    browser = browser_without_javascript
    problems = []
    server.store(skipPurchaseSheet=False)
    for locale, storefront in LOCALES:
        install_id = server.create_install(locale=locale, storefront=storefront)
        for where in WIDTHS:
            set_width(browser, where)
            browser.get(f"{server.base}/installs/{install_id}?load=now&textSize={size}")
            tile(browser, "coffee").click()
            wait(browser, lambda: "/purchase-sheet" in browser.current_url, message="no sheet page")
            line = browser.execute_script(
                "var r = document.createRange(); r.selectNodeContents(document.getElementById('sheet-account'));"
                "var l = r.getClientRects()[0]; return {top: l.top, bottom: l.bottom, innerHeight: innerHeight};")
            if not 0 <= line["top"] <= line["bottom"] <= line["innerHeight"]:
                problems.append(f"{locale} {where[0]} px {size}: the Apple Account is below the first screen: {line}")
            browser.find_element(By.ID, "sheet-cancel").click()
            wait(browser, lambda: "feedback=cancelled" in browser.current_url, message="no redirect after Cancel")
    assert not problems, "\n".join(problems)


def open_refund_sheet(driver):
    driver.find_element(By.CSS_SELECTOR, '#ledger a[href*="/refund-sheet"]').click()
    wait(driver, lambda: driver.execute_script(
        "var s = document.getElementById('refund-sheet'); return !!s && s.open && s.matches(':modal');"),
        message="no modal refund sheet")


@pytest.mark.parametrize("locale, storefront", LOCALES)
def test_the_refund_sheet_is_a_modal_dialog_in_the_screens_text_size_inside_the_viewport(browser, server, locale, storefront):
    """Transaction.beginRefundRequest(in:) shows a system sheet over the app
    (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn): over the install
    page it is a modal dialog in the screen's Dynamic Type size, inside the viewport, and Submit answers on the page."""
    install_id = server.create_install(locale=locale, storefront=storefront)
    server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
    problems = []
    for where in WIDTHS:
        set_width(browser, where)
        for size in ("large", "AX5"):
            open_install(browser, server, install_id, f"?textSize={size}")
            open_refund_sheet(browser)
            found = browser.execute_script(DIALOG_JS, "refund-sheet")
            label = f"{locale} {where[0]} px {size}"
            problems += [f"{label}: {p}" for p in inside(found, where)]
            text = browser.execute_script("return parseFloat(getComputedStyle(document.getElementById('refund-sheet')).fontSize);")
            if text != BODY_POINTS[size]:
                problems.append(f"{label}: the sheet's text is {text} px, the screen's {BODY_POINTS[size]} px")
            for part in ("refund-submit", "refund-cancel"):
                box = browser.execute_script(
                    "var r = document.getElementById(arguments[0]).getBoundingClientRect(); return r.bottom <= innerHeight && r.top >= 0;", part)
                if not box:
                    problems.append(f"{label}: {part} is off the screen")
            if size == "AX5" and where == PHONE:
                violations, report = serious_violations(browser)
                if violations:
                    problems.append(f"{label} (axe-core): {report}")
            press_escape = ActionChains(browser).send_keys(Keys.ESCAPE)
            press_escape.perform()
            wait(browser, lambda: "feedback=refundCancelled" in browser.current_url, message="Escape is not the sheet's Cancel")
    open_install(browser, server, install_id)
    open_refund_sheet(browser)
    browser.find_element(By.ID, "refund-submit").click()
    wait(browser, lambda: "feedback=refundRequested" in browser.current_url, message="no answer after Submit")
    notice = browser.find_element(By.CSS_SELECTOR, "#feedback .notice")
    wait(browser, lambda: browser.switch_to.active_element == notice, message="the answer's notice did not take the focus")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", ["large", "AX5"])
def test_without_javascript_the_refund_sheet_is_a_page_in_the_screens_text_size(browser_without_javascript, server, size):
    browser = browser_without_javascript
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
    for where in WIDTHS:
        set_width(browser, where)
        browser.get(f"{server.base}/installs/{install_id}?load=now&textSize={size}")
        browser.find_element(By.CSS_SELECTOR, '#ledger a[href*="/refund-sheet"]').click()
        wait(browser, lambda: "/refund-sheet" in browser.current_url, message="no refund sheet page")
        text = browser.execute_script("return parseFloat(getComputedStyle(document.querySelector('section.refund-sheet')).fontSize);")
        assert text == BODY_POINTS[size], f"{where[0]} px: {text} px, not the screen's {BODY_POINTS[size]} px"
        assert browser.execute_script("return document.documentElement.scrollWidth <= innerWidth;")
        browser.find_element(By.ID, "refund-cancel").click()
        wait(browser, lambda: "feedback=refundCancelled" in browser.current_url, message="no answer after Cancel")
        assert f"textSize={size}" in browser.current_url or size == "large", browser.current_url
