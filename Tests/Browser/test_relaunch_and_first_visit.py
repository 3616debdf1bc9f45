"""Real-browser tests of what a person meets first on an install page: Relaunch shows the loading state at once and
keeps the tips disabled until the relaunched app has loaded them (README, "Domain rules": Loading, and the three
layers of feedback), with and without JavaScript; without JavaScript a new install shows its tips with no extra click
(an instant refresh, WCAG 2.2 technique H76), and the answer to a purchase puts the focus on its notice, never on
<body> (WCAG 2.2, 2.4.3 Focus Order).

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh).
"""

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    THANK_YOU, browser, browser_without_javascript, chrome, normal_store, notice_text, open_install, running_server,
    serious_violations, server, tier_classes, tile, tiles_disabled, tip_jar_state, wait, wait_for_state, TIERS)
from test_dialogs import set_width
from test_phone_screen import PHONE

LOCALES = (("en", "USA"), ("pt-BR", "BRA"))
WIDTHS = (PHONE, (1280, 900))
# Longer than any wait for the loading state below, so only a state shown at once is seen in time.
SLOW_CATALOG_MS = 3000
AT_ONCE_S = 2

BUSY_JS = """
var jar = document.getElementById('tipjar'), tiles = document.querySelectorAll('#tipjar .tiles button.tile');
return {state: document.getElementById('tipjar-state').dataset.state, busy: jar.getAttribute('aria-busy'),
        enabled: Array.from(tiles).filter(function (t) { return !t.disabled; }).length};"""


def relaunch(driver):
    driver.find_element(By.CSS_SELECTOR, "form[action$='/launch'] button").click()


def is_loading_at_once(driver):
    """The tips are out of reach at once: disabled and busy on the page pressed, or the skeleton of the next."""
    found = driver.execute_script(BUSY_JS)
    return found["enabled"] == 0 and (found["busy"] == "true" or found["state"] == "loading")


@pytest.mark.parametrize("locale, storefront", LOCALES)
@pytest.mark.parametrize("where", WIDTHS, ids=["390", "1280"])
def test_relaunch_shows_the_loading_state_at_once_and_the_tips_wait_until_loaded(browser, server, locale, storefront, where):
    install_id = server.create_install(locale=locale, storefront=storefront)
    set_width(browser, where)
    for size in ("large", "AX5"):
        server.store(**server.defaults)
        server.store(skipPurchaseSheet=True)
        open_install(browser, server, install_id, f"?textSize={size}")
        server.store(catalog="slow", latencyMs=SLOW_CATALOG_MS)
        relaunch(browser)
        wait(browser, lambda: is_loading_at_once(browser), timeout=AT_ONCE_S,
             message=f"{size}: the tips stayed usable after Relaunch")
        wait(browser, lambda: tip_jar_state(browser) == "loading", timeout=AT_ONCE_S,
             message=f"{size}: no loading skeleton while the relaunched app loads its tips")
        assert browser.find_elements(By.CSS_SELECTOR, "#tipjar .tiles button.tile") == [], "a tip is a button while loading"
        assert browser.find_element(By.ID, "tipjar").get_attribute("aria-busy") == "true"
        if size == "large" and where == PHONE:
            found, report = serious_violations(browser)
            assert not found, "loading after Relaunch: " + report
        wait_for_state(browser, "ready", timeout=SLOW_CATALOG_MS / 1000 + 10)
        assert tier_classes(browser) == TIERS
        assert tiles_disabled(browser) == [False, False, False]
        assert browser.find_element(By.ID, "tipjar").get_attribute("aria-busy") == "false"
        assert browser.current_url.endswith("#actions"), browser.current_url


@pytest.mark.parametrize("locale, storefront", LOCALES)
def test_without_javascript_relaunch_loads_the_tips_by_itself_back_at_the_app_controls(browser_without_javascript, server, locale, storefront):
    """The page Relaunch answers with (the skeleton, which refreshes at once: RelaunchPageTests holds its markup, as
    WebDriver waits for the refresh before it reads a page) ends on the loaded tips, at the App controls' heading."""
    browser = browser_without_javascript
    install_id = server.create_install(locale=locale, storefront=storefront)
    for where in WIDTHS:
        set_width(browser, where)
        server.store(**server.defaults)
        browser.get(f"{server.base}/installs/{install_id}?load=now&textSize=AX5")
        server.store(catalog="slow", latencyMs=SLOW_CATALOG_MS)
        relaunch(browser)
        wait(browser, lambda: tip_jar_state(browser) == "ready" and "load=now" in browser.current_url,
             timeout=SLOW_CATALOG_MS / 1000 + 10, message="the tips never loaded")
        assert "textSize=AX5" in browser.current_url and browser.current_url.endswith("#actions"), browser.current_url
        assert tier_classes(browser) == TIERS
        assert tiles_disabled(browser) == [False, False, False]


@pytest.mark.parametrize("locale, storefront", LOCALES)
def test_without_javascript_a_new_install_shows_its_tips_with_no_extra_click(browser_without_javascript, server, locale, storefront):
    browser = browser_without_javascript
    for where in WIDTHS:
        set_width(browser, where)
        browser.get(server.base + "/installs")
        form = browser.find_element(By.CSS_SELECTOR, 'form[action="/installs"][method="post"]')
        Select(form.find_element(By.NAME, "locale")).select_by_value(locale)
        Select(form.find_element(By.NAME, "storefront")).select_by_value(storefront)
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait(browser, lambda: tip_jar_state(browser) == "ready", message=f"{where[0]} px: the new install's tips never showed")
        assert re.search(r"/installs/[0-9a-f-]{36}\?load=now", browser.current_url), browser.current_url
        assert tier_classes(browser) == TIERS


@pytest.mark.parametrize("locale, storefront", LOCALES)
@pytest.mark.parametrize("size", ["large", "AX5"])
def test_without_javascript_confirm_puts_the_focus_on_the_thank_you(browser_without_javascript, server, locale, storefront, size):
    browser = browser_without_javascript
    install_id = server.create_install(locale=locale, storefront=storefront)
    server.store(skipPurchaseSheet=False)
    for where in WIDTHS:
        set_width(browser, where)
        browser.get(f"{server.base}/installs/{install_id}?load=now&textSize={size}")
        tile(browser, "coffee").click()
        wait(browser, lambda: "/purchase-sheet" in browser.current_url, message="no sheet page")
        browser.find_element(By.ID, "sheet-confirm").click()
        wait(browser, lambda: "feedback=purchased" in browser.current_url, message="no redirect after Confirm")
        notice = browser.find_element(By.CSS_SELECTOR, "#feedback .notice")
        wait(browser, lambda: browser.switch_to.active_element == notice,
             message=f"{where[0]} px: the focus is on {browser.switch_to.active_element.tag_name}, not the thank-you")
        if locale == "en":
            assert notice_text(browser) == THANK_YOU
        box = browser.execute_script(
            "var r = arguments[0].getBoundingClientRect(); return {top: r.top, bottom: r.bottom, h: innerHeight};", notice)
        assert 0 <= box["top"] and box["top"] < box["h"], f"the thank-you is off the screen: {box}"
