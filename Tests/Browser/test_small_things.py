"""Real-browser tests of small things a picky user saw on the install page: a long Apple Account wraps at 390 px,
"Save as scenario" says why it cannot record, deleted installs are text, a sheet open in another tab disables
this tab's tiles, the focus ring contrasts 3:1, the skeleton is as tall as the tiles, counts agree with their
nouns (CLDR plural rules), one ledger landmark, and the no-JavaScript path neither hangs on a skeleton nor thanks
twice.

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh).
"""

import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    AXE_JS, THANK_YOU, browser, browser_without_javascript, chrome, normal_store, notice_text, open_install, press,
    running_server, server, tile, tiles_disabled, wait, wait_for_state)
from test_phone_screen import PHONE, emulate_phone
from test_purchase_sheet import sheet_is_gone, sheet_is_modal

# 100 characters, the longest Apple Account an install takes, with no space to wrap at.
LONG_ACCOUNT = ("appleseed.johnny.the.longest.account" + "x" * 45 + "@icloud-example.com")[:100]


def page_width(driver):
    return driver.execute_script("return {scroll: document.documentElement.scrollWidth, inner: innerWidth};")


def test_a_100_character_apple_account_wraps_on_a_390_px_phone_and_the_sheet_keeps_confirm_on_screen(browser, server):
    assert len(LONG_ACCOUNT) == 100
    problems = []
    for locale, storefront in (("en", "USA"), ("pt-BR", "BRA")):
        install_id = server.create_install(locale=locale, storefront=storefront, accountID=LONG_ACCOUNT)
        emulate_phone(browser)
        server.store(skipPurchaseSheet=False)
        for size in ("large", "AX5"):
            open_install(browser, server, install_id, f"?textSize={size}")
            width = page_width(browser)
            if width != {"scroll": PHONE[0], "inner": PHONE[0]}:
                problems.append(f"{locale} {size}: the install page is {width} px wide on a {PHONE[0]} px phone")
            tile(browser, "coffee").click()
            wait(browser, lambda: sheet_is_modal(browser), message="no modal purchase sheet")
            assert browser.find_element(By.ID, "sheet-account").text.replace("\n", "") == LONG_ACCOUNT
            confirm = browser.execute_script(
                "var r = document.getElementById('sheet-confirm').getBoundingClientRect();"
                "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: innerWidth, height: innerHeight};")
            if not (0 <= confirm["left"] and confirm["right"] <= confirm["width"] and 0 <= confirm["top"]
                    and confirm["bottom"] <= confirm["height"]):
                problems.append(f"{locale} {size}: Confirm is off the screen: {confirm}")
            browser.find_element(By.ID, "sheet-cancel").click()
            wait(browser, lambda: sheet_is_gone(browser), message="Cancel did not close the sheet")
    assert not problems, "\n".join(problems)


def scenario_status(server, install_id):
    try:
        with urllib.request.urlopen(f"{server.base}/api/installs/{install_id}/scenario", timeout=15) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def test_save_as_scenario_says_why_when_the_installs_creation_left_the_timeline(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    assert browser.find_element(By.LINK_TEXT, "Save as scenario"), "a fresh install is recordable"
    # The timeline keeps an install's last 50 events: enough relaunches push its creation out.
    for _ in range(30):
        server.api("POST", f"/api/installs/{install_id}/stop")
        server.api("POST", f"/api/installs/{install_id}/launch")
    assert scenario_status(server, install_id) == 409
    open_install(browser, server, install_id)
    assert not browser.find_elements(By.LINK_TEXT, "Save as scenario"), "a download that answers 409, silently"
    refusal = browser.find_element(By.ID, "scenario-refusal").text
    assert "creation is no longer on the timeline" in refusal, refusal


def test_events_of_a_deleted_install_are_text_not_links(browser, server):
    install_id = server.create_install(label="soon deleted")
    server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
    browser.get(server.base + "/")
    assert browser.find_elements(By.CSS_SELECTOR, f'.events a[href="/installs/{install_id}"]'), "no link while it exists"
    server.api("DELETE", f"/api/installs/{install_id}")
    browser.get(server.base + "/")
    assert not browser.find_elements(By.CSS_SELECTOR, f'.events a[href="/installs/{install_id}"]'), \
        "a link to a deleted install, which answers 404"
    texts = [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".events .deleted-install")]
    assert f"{install_id[:8]} (deleted)" in texts, texts


def test_a_sheet_open_in_another_tab_disables_this_tabs_tiles_until_it_closes(browser, server):
    install_id = server.create_install()
    server.store(skipPurchaseSheet=False)
    open_install(browser, server, install_id)
    first = browser.current_window_handle
    browser.switch_to.new_window("tab")
    try:
        open_install(browser, server, install_id)
        tile(browser, "snack").click()
        wait(browser, lambda: sheet_is_modal(browser), message="no modal purchase sheet in the second tab")
        browser.switch_to.window(first)
        wait(browser, lambda: tiles_disabled(browser) == [True, True, True],
             message="the first tab's tiles stayed usable while the sheet is open in the second")
        second = [handle for handle in browser.window_handles if handle != first][0]
        browser.switch_to.window(second)
        browser.find_element(By.ID, "sheet-cancel").click()
        wait(browser, lambda: sheet_is_gone(browser))
        browser.switch_to.window(first)
        wait(browser, lambda: tiles_disabled(browser) == [False, False, False],
             message="the first tab's tiles stayed disabled after the sheet closed")
    finally:
        for handle in browser.window_handles:
            if handle != first:
                browser.switch_to.window(handle)
                browser.close()
        browser.switch_to.window(first)


def relative_luminance(rgb):
    def channel(value):
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first, second):
    """WCAG 2.2's contrast ratio (Understanding SC 1.4.3, "contrast ratio")."""
    high, low = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def rgb(css):
    return tuple(int(float(part)) for part in css[css.index("(") + 1:css.index(")")].split(",")[:3])


def test_the_focus_ring_contrasts_3_to_1_with_white_and_the_page(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    browser.execute_script("document.querySelector('#tipjar .tile').focus();")
    press(browser, Keys.TAB)  # keyboard focus, so :focus-visible applies
    ring = browser.execute_script(
        "var a = document.activeElement, s = getComputedStyle(a);"
        "return {tag: a.tagName, style: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor,"
        " page: getComputedStyle(document.body).backgroundColor};")
    assert ring["style"] == "solid" and ring["width"] >= 2, ring
    for name, background in (("white", (255, 255, 255)), ("the page", rgb(ring["page"]))):
        ratio = contrast(rgb(ring["color"]), background)
        assert ratio >= 3, f"the focus ring {ring['color']} is {ratio:.2f}:1 against {name} (WCAG 2.2 SC 1.4.11 asks 3:1)"


TILES_HEIGHT_JS = "var t = document.querySelector('#tipjar-state .tiles'); return t ? t.getBoundingClientRect().height : null;"


def test_the_loading_skeleton_is_as_tall_as_the_tiles_it_stands_for(browser, server):
    install_id = server.create_install()
    problems = []
    for width in (PHONE[0], 1280):
        if width == PHONE[0]:
            emulate_phone(browser)
        else:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            browser.set_window_size(1280, 1000)
        server.store(catalog="slow", latencyMs=2500)
        # A relaunched app has loaded nothing yet (a page shows tips loaded since the launch at once).
        server.api("POST", f"/api/installs/{install_id}/stop")
        server.api("POST", f"/api/installs/{install_id}/launch")
        open_install(browser, server, install_id, state="loading")
        skeleton = browser.execute_script(TILES_HEIGHT_JS)
        wait_for_state(browser, "ready", timeout=15)
        loaded = browser.execute_script(TILES_HEIGHT_JS)
        if abs(skeleton - loaded) > 1:
            problems.append(f"{width} px: the skeleton is {skeleton} px tall, the tiles {loaded} px")
    server.store(**server.defaults)
    assert not problems, "\n".join(problems)


def test_a_restore_says_purchase_or_purchases_by_each_languages_plural_rule(browser, server):
    expected = {
        ("en", 1): "Restore finished: 1 unfinished purchase delivered.",
        ("en", 2): "Restore finished: 2 unfinished purchases delivered.",
        ("pt-BR", 1): "Restauração concluída: 1 compra não finalizada entregue.",
        ("pt-BR", 2): "Restauração concluída: 2 compras não finalizadas entregues.",
    }
    installs = {"en": server.create_install(), "pt-BR": server.create_install(locale="pt-BR", storefront="BRA")}
    for (locale, count), sentence in expected.items():
        # The no-JavaScript redirect's page reads the restore's count back from its query.
        open_install(browser, server, installs[locale], f"?load=now&feedback=restored&count={count}")
        assert notice_text(browser) == sentence


def test_the_ledger_is_one_landmark_with_a_name_of_its_own(browser, server):
    install_id = server.create_install()
    server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
    open_install(browser, server, install_id)
    browser.set_script_timeout(60)
    browser.execute_script(AXE_JS.read_text(encoding="utf-8"))
    results = browser.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "axe.run(document, {runOnly: ['landmark-unique'], resultTypes: ['violations']}).then("
        " function (r) { done(r.violations.map(function (v) { return v.id + ': ' + v.nodes.map(function (n) { return n.target.join(' '); }).join('; '); })); },"
        " function (e) { done(['axe failed: ' + e]); });")
    assert results == [], results


def test_without_javascript_a_plain_visit_loads_the_tips_by_itself_not_a_skeleton_that_never_ends(browser_without_javascript, server):
    browser = browser_without_javascript
    install_id = server.create_install()
    browser.get(f"{server.base}/installs/{install_id}")
    wait(browser, lambda: browser.find_element(By.ID, "tipjar-state").get_attribute("data-state") == "ready",
         message="the skeleton waits for app.js, which never runs")
    assert "load=now" in browser.current_url


def test_without_javascript_a_reload_after_a_purchase_does_not_thank_again(browser_without_javascript, server):
    browser = browser_without_javascript
    install_id = server.create_install()
    browser.get(f"{server.base}/installs/{install_id}?load=now")
    tile(browser, "coffee").click()
    wait(browser, lambda: "feedback=purchased" in browser.current_url, message="no redirect after the form post")
    assert notice_text(browser) == THANK_YOU
    browser.refresh()
    wait(browser, lambda: browser.find_element(By.ID, "tipjar-state").get_attribute("data-state") == "ready")
    assert notice_text(browser) is None, "the reload said \"One more heart.\" again"
    assert server.install(install_id)["hearts"] == 1
