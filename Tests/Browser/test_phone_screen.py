"""Real-browser tests of the pages at phone width and of the simulated screen: no page wider than a
390 px phone, the alert inside the viewport, the thank-you line, text sizes that scale the whole
screen like Dynamic Type, focus after every fragment swap, and the screen's own language.

Same server, browser and helpers as test_dashboard.py (run both with Tests/Browser/run.sh). The
phone is Chromium's device emulation (`Emulation.setDeviceMetricsOverride`, mobile): as on a
phone, content wider than the page widens the layout viewport instead of scrolling a window, so
`innerWidth` itself must stay 390.
"""

import threading
import urllib.request

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    THANK_YOU, alert_is_modal, browser, chrome, hearts, normal_store, notice_text, open_install, press,
    running_server, serious_violations, server, tile, tiles, tiles_disabled, wait, wait_for_state)

PHONE = (390, 844)
COFFEE, SNACK, LUNCH = (f"com.example.tipjar.tip.{name}" for name in ("coffee", "snack", "lunch"))
SEED_NAMES = {"en": ["Coffee", "Snack", "Lunch"], "pt-BR": ["Café", "Lanche", "Almoço completo"]}
THANKS = {"en": "Thank you for supporting the app!", "pt-BR": "Obrigado por apoiar o app!"}
SIZES = ("large", "xxLarge", "AX5")  # Dynamic Type: Large (the default), a bigger standard size, the largest


def emulate_phone(driver, width=PHONE[0], height=PHONE[1]):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True})


def buy(server, install_id, product=COFFEE):
    return server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": product})


def install_with_ledger(server, **fields):
    """An install with a few ledger rows (the ledger table is the widest thing on its page)."""
    install_id = server.create_install(**fields)
    for product in (COFFEE, SNACK, LUNCH):
        buy(server, install_id, product)
    return install_id


PAGE_WIDTH_JS = """
var tables = Array.from(document.querySelectorAll('table'));
var boxes = Array.from(document.querySelectorAll('.warning, .phone, .panel'));
return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
  unwrapped: tables.filter(function (t) { return !t.closest('.table-scroll'); }).length,
  regions: Array.from(document.querySelectorAll('.table-scroll')).map(function (r) {
    return {tabindex: r.getAttribute('tabindex'), role: r.getAttribute('role')}; }),
  spills: boxes.filter(function (b) { return b.scrollWidth > b.clientWidth; }).map(function (b) { return b.className; })};"""


def check_page_fits(driver, where):
    """What is wrong with the current page at phone width, as sentences."""
    # Folded groups (/store's <details>) are opened first, so what they hold is checked too.
    driver.execute_script("document.querySelectorAll('details').forEach(function (d) { d.open = true; });")
    found = driver.execute_script(PAGE_WIDTH_JS)
    problems = []
    if found["innerWidth"] != PHONE[0] or found["scrollWidth"] > found["innerWidth"]:
        problems.append(f"{where}: the page is {found['scrollWidth']} px wide, the layout viewport "
                        f"{found['innerWidth']} px, on a {PHONE[0]} px phone")
    if found["unwrapped"]:
        problems.append(f"{where}: {found['unwrapped']} table(s) outside a scrolling region")
    if any(r != {"tabindex": "0", "role": "region"} for r in found["regions"]):
        problems.append(f"{where}: a scrolling region is not a focusable region: {found['regions']}")
    for region in driver.find_elements(By.CSS_SELECTOR, ".table-scroll"):
        if not region.accessible_name:
            problems.append(f"{where}: a scrolling region has no accessible name")
    if found["spills"]:
        problems.append(f"{where}: content spills out of {found['spills']}")
    violations, report = serious_violations(driver)
    if violations:
        problems.append(f"{where} (axe-core): {report}")
    return problems


# MARK: Every page at 390 px


def test_every_page_fits_a_390_px_phone_with_tables_scrolling_in_their_own_region(browser, server):
    english = install_with_ledger(server, label="Ana's iPhone")
    portuguese = install_with_ledger(server, locale="pt-BR", storefront="BRA", label="iPhone da Bia")
    server.store(purchaseOutcome="pending")
    buy(server, english, SNACK)  # a row in the Ask to Buy table
    server.store(**server.defaults)
    emulate_phone(browser)
    problems = []
    pages = [("/", None), ("/installs", None), ("/store", None), ("/catalog", None), ("/transactions", None),
             ("/confirm/transactions-clear", None), (f"/confirm/installs/{english}/delete", None)]
    pages += [(f"/installs/{install}?textSize={size}", "ready") for install in (english, portuguese) for size in SIZES]
    for path, state in pages:
        browser.get(server.base + path)
        if state:
            wait_for_state(browser, state)
        problems += check_page_fits(browser, path)
    server.store(catalog="mismatch")  # the warning lists every product ID, asked for and held
    browser.get(server.base + "/store")
    assert browser.find_elements(By.CSS_SELECTOR, ".warning code")
    problems += check_page_fits(browser, "/store with the mismatch warning")
    assert not problems, "\n".join(problems)


DIALOG_BOX_JS = """
var r = document.getElementById('alert').getBoundingClientRect();
return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: innerWidth, height: innerHeight,
        scrollWidth: document.documentElement.scrollWidth};"""


@pytest.mark.parametrize("size", ["default", "accessibility"])
def test_the_alert_fits_the_phone_screen_beside_a_long_ledger(browser, server, size):
    install_id = install_with_ledger(server, locale="pt-BR", storefront="BRA")
    server.store(purchaseOutcome="failed", purchaseError="networkError")
    emulate_phone(browser)
    open_install(browser, server, install_id, f"?textSize={size}")
    tile(browser, "coffee").click()
    wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
    box = browser.execute_script(DIALOG_BOX_JS)
    assert box["width"] == PHONE[0] and box["scrollWidth"] <= box["width"], box
    assert 0 <= box["left"] and box["right"] <= box["width"], f"the alert is cut off at the sides: {box}"
    assert 0 <= box["top"] and box["bottom"] <= box["height"], f"the alert is cut off at the top or bottom: {box}"


# MARK: The thank-you line


def thanks_text(driver):
    return driver.execute_script("var t = document.querySelector('#hearts .thanks'); return t ? t.innerText.trim() : null;")


@pytest.mark.parametrize("locale, storefront", [("en", "USA"), ("pt-BR", "BRA")])
def test_the_thank_you_stays_on_the_screen_after_a_reload_in_the_installs_language(browser, server, locale, storefront):
    install_id = server.create_install(locale=locale, storefront=storefront)
    open_install(browser, server, install_id)
    assert hearts(browser) == 0 and thanks_text(browser) is None, "a thank-you with no heart"
    tile(browser, "coffee").click()
    wait(browser, lambda: hearts(browser) == 1, message="no new heart")
    assert thanks_text(browser) == THANKS[locale]
    browser.refresh()
    wait_for_state(browser, "ready")
    assert hearts(browser) == 1
    assert notice_text(browser) is None, "the purchase notice came back on a reload"
    assert thanks_text(browser) == THANKS[locale], "the thank-you was gone after the reload"


def test_a_heart_from_the_old_version_shows_the_thank_you_too(browser, server):
    install_id = server.create_install(legacyHasTipped=True)
    open_install(browser, server, install_id)
    assert hearts(browser) == 1
    assert thanks_text(browser) == THANKS["en"]


# MARK: Text size like Dynamic Type


SCREEN_TEXTS = {"heading": "#credits-title", "blurb": ".phone .appblurb", "hearts": "#hearts .hearts",
                "thank-you": "#hearts .thanks", "tile name": "#tipjar .tile .name", "price": "#tipjar .tile .price",
                "notice": "#feedback .notice", "alert title": "dialog#alert h2", "alert text": "dialog#alert p",
                "alert button": "dialog#alert button", "Restore": ".restore button"}

FONT_SIZES_JS = """
var texts = arguments[0], sizes = {};
Object.keys(texts).forEach(function (name) {
  var element = document.querySelector(texts[name]);
  sizes[name] = element ? parseFloat(getComputedStyle(element).fontSize) : null;
});
return sizes;"""


def screen_font_sizes(driver):
    return driver.execute_script(FONT_SIZES_JS, SCREEN_TEXTS)


def test_large_and_accessibility_sizes_scale_every_text_of_the_screen(browser, server):
    install_id = server.create_install()
    measured = {}
    for size in SIZES:
        server.store(purchaseOutcome="success")
        open_install(browser, server, install_id, f"?textSize={size}")
        tile(browser, "coffee").click()
        wait(browser, lambda: notice_text(browser) == THANK_YOU, message="no thank-you notice")
        wait(browser, lambda: tiles_disabled(browser) == [False, False, False])
        with_notice = screen_font_sizes(browser)
        server.store(purchaseOutcome="failed", purchaseError="networkError")
        tile(browser, "snack").click()
        wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
        with_alert = screen_font_sizes(browser)  # the alert replaces the notice
        measured[size] = {name: with_notice[name] or with_alert[name] for name in SCREEN_TEXTS}
        assert None not in measured[size].values(), f"{size}: missing {measured[size]}"
    for name in SCREEN_TEXTS:
        large, bigger, largest = (measured[size][name] for size in SIZES)
        assert large < bigger < largest, f"{name} does not grow with the text size: {large}, {bigger}, {largest} px"


NAME_FIT_JS = """
return Array.from(document.querySelectorAll('#tipjar .tiles .name')).map(function (name) {
  var text = name.firstChild, broken = [], match, pattern = /\\S+/g;
  while (text && (match = pattern.exec(text.data))) {
    var range = document.createRange(); range.setStart(text, match.index); range.setEnd(text, match.index + match[0].length);
    var tops = {}; Array.from(range.getClientRects()).forEach(function (r) { if (r.width > 0) tops[Math.round(r.top)] = 1; });
    if (Object.keys(tops).length > 1) broken.push(match[0]);
  }
  var tile = name.closest('.tile').getBoundingClientRect(), box = name.getBoundingClientRect();
  return {name: name.textContent, broken: broken,
          cut: name.scrollWidth > name.clientWidth || name.scrollHeight > name.clientHeight
               || box.left < tile.left || box.right > tile.right};
});"""


@pytest.mark.parametrize("locale, storefront", [("en", "USA"), ("pt-BR", "BRA")])
def test_names_are_never_cut_and_words_never_break_at_default_and_large_sizes(browser, server, locale, storefront):
    install_id = server.create_install(locale=locale, storefront=storefront)
    problems = []
    for width, phone in ((PHONE[0], True), (1280, False)):
        if phone:
            emulate_phone(browser)
        else:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            browser.set_window_size(1280, 1000)
        for size in ("default", "large"):
            open_install(browser, server, install_id, f"?textSize={size}")
            names = browser.execute_script(NAME_FIT_JS)
            assert [n["name"] for n in names] == SEED_NAMES[locale]
            problems += [f"{width} px, {size}: {n}" for n in names if n["cut"] or n["broken"]]
            overflow = browser.execute_script("var p = document.querySelector('.phone'); return p.scrollWidth - p.clientWidth;")
            if overflow > 0:
                problems.append(f"{width} px, {size}: the phone card overflows by {overflow} px")
    assert not problems, "\n".join(problems)


TILE_TOPS_JS = """
return Array.from(document.querySelectorAll('#tipjar .tiles button.tile')).map(function (t) {
  var r = t.getBoundingClientRect(); return {top: Math.round(r.top), bottom: Math.round(r.bottom)}; });"""


def test_tiles_share_one_row_or_all_stack_never_two_and_one(browser, server):
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    layouts = set()
    for width in (390, 320, 280):  # at Large, "completo" fits three across at 390 px, not at 280
        emulate_phone(browser, width=width)
        open_install(browser, server, install_id, "?textSize=large")
        rects = browser.execute_script(TILE_TOPS_JS)
        if len({r["top"] for r in rects}) == 1:
            layouts.add("one row")
        elif all(a["bottom"] <= b["top"] for a, b in zip(rects, rects[1:])):
            layouts.add("stacked")
        else:
            pytest.fail(f"at {width} px the tiles are neither in one row nor stacked: {rects}")
        names = browser.execute_script(NAME_FIT_JS)
        assert not [n for n in names if n["cut"] or n["broken"]], f"{width} px: {names}"
    assert layouts == {"one row", "stacked"}, f"only {layouts} seen between 390 and 280 px"


# MARK: Focus after a fragment swap


def active_description(driver):
    return driver.execute_script(
        "var a = document.activeElement; return a ? a.tagName.toLowerCase() + (a.id ? '#' + a.id : '') + "
        "' ' + (a.className || '') + ' ' + (a.textContent || '').trim().slice(0, 30) : null;")


def wait_for_focus(driver, is_focused, after):
    try:
        wait(driver, is_focused)
    except TimeoutException:
        pytest.fail(f"focus is on {active_description(driver)} {after}")


def test_after_retry_focus_moves_to_the_new_retry_then_to_the_first_tile(browser, server):
    install_id = server.create_install()
    server.store(catalog="failing")
    open_install(browser, server, install_id, state="unavailable")
    # Retry that fails again: the fragment is replaced and the new Retry has the focus.
    browser.execute_script("window.__retry = document.querySelector('#tipjar-state .empty button'); window.__retry.focus();")
    press(browser, Keys.ENTER)
    wait(browser, lambda: browser.execute_script("return !window.__retry.isConnected;"), message="Retry did not swap the fragment")
    wait_for_state(browser, "unavailable")
    wait_for_focus(browser, lambda: browser.execute_script(
        "return document.activeElement === document.querySelector('#tipjar-state .empty button');"), "after a failed Retry")
    found, report = serious_violations(browser)
    assert not found, "unavailable state: " + report
    # Retry that succeeds: the first tile has the focus, so Enter buys a coffee.
    server.store(catalog="normal")
    press(browser, Keys.ENTER)
    wait_for_state(browser, "ready")
    wait_for_focus(browser, lambda: browser.switch_to.active_element == tile(browser, "coffee"), "after a successful Retry")


# After an alert closed, focus is back on the tapped tile: test_dashboard.py's
# test_failed_purchase_opens_a_modal_alert (a click on OK) and test_buy_a_tip_with_the_keyboard_alone (Enter).


def test_the_live_poll_keeps_focus_and_scroll_in_the_ledger(browser, server):
    install_id = install_with_ledger(server)
    emulate_phone(browser)
    open_install(browser, server, install_id)
    region = browser.find_element(By.ID, "ledger-scroll")
    browser.execute_script("arguments[0].focus(); arguments[0].scrollLeft = 120;", region)
    left = browser.execute_script("return arguments[0].scrollLeft;", region)
    assert left > 0, "the ledger does not scroll sideways at 390 px"
    rows = browser.execute_script("return document.querySelectorAll('#ledger tbody tr').length;")
    buy(server, install_id, COFFEE)  # the poll brings a new ledger row
    wait(browser, lambda: browser.execute_script("return document.querySelectorAll('#ledger tbody tr').length;") == rows + 1,
         message="the poll did not bring the new ledger row")
    assert browser.execute_script("return document.activeElement.id;") == "ledger-scroll", active_description(browser)
    assert browser.execute_script("return document.getElementById('ledger-scroll').scrollLeft;") == left


# MARK: The screen's own language, the overview, the ledger's order, slow, emoji


def test_a_second_purchase_while_one_is_open_gets_an_alert_in_the_installs_language(browser, server):
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    server.store(purchaseLatencyMs=3000)
    open_install(browser, server, install_id)
    first = threading.Thread(target=buy, args=(server, install_id, COFFEE))  # another tab's purchase
    first.start()
    try:
        page = lambda: urllib.request.urlopen(f"{server.base}/installs/{install_id}", timeout=10).read().decode()  # noqa: E731
        wait(browser, lambda: "purchase.open" in page(), message="the other purchase never opened")
        # The live channel disables the tiles once it brings the other purchase (test_small_things.py); a tap that
        # comes before it does, the race this alert is for, is a tap on a tile still enabled.
        browser.execute_script("arguments[0].disabled = false; arguments[0].click();", tile(browser, "snack"))
        wait(browser, lambda: alert_is_modal(browser), message="no alert for the purchase already open")
        dialog = browser.find_element(By.CSS_SELECTOR, "dialog#alert")
        assert dialog.find_element(By.TAG_NAME, "h2").text == "Compra em andamento"
        assert "Já há uma compra em andamento" in dialog.text
        assert "Conflict" not in dialog.text and "purchase is already open" not in dialog.text
        found, report = serious_violations(browser)
        assert not found, "409 alert: " + report
    finally:
        first.join()


def test_the_empty_overview_offers_to_create_an_install(browser):
    with running_server() as empty:
        browser.get(empty.base + "/")
        link = browser.find_element(By.LINK_TEXT, "Create an install")
        assert link.get_attribute("href").endswith("/installs#create")
        found, report = serious_violations(browser)
        assert not found, "empty overview: " + report
        link.click()
        wait(browser, lambda: browser.current_url.endswith("/installs#create"))
        assert browser.find_element(By.ID, "create").find_element(By.CSS_SELECTOR, "form[action='/installs']")


def test_the_ledger_is_newest_first_like_the_timeline(browser, server):
    install_id = install_with_ledger(server)
    open_install(browser, server, install_id)
    # Read in one script each: the live channel may swap the ledger and the timeline in between (the offers load
    # that open_install waits for adds a timeline event, and its live event can land at any moment).
    shown = [int(text) for text in browser.execute_script(
        "return Array.from(document.querySelectorAll('#ledger tbody tr td:nth-child(3)')).map(function (c) { return c.textContent; });")]
    assert len(shown) == 3 and shown == sorted(shown, reverse=True), shown
    times = browser.execute_script(
        "return Array.from(document.querySelectorAll('.events time')).map(function (t) { return t.getAttribute('datetime'); });")
    assert times == sorted(times, reverse=True), "the timeline is not newest first"
    # The JSON API keeps its documented order (oldest first).
    api = [row["transactionID"] for row in server.api("GET", f"/api/installs/{install_id}/ledger")]
    assert api == sorted(shown)


def test_choosing_slow_with_no_latency_sets_a_visible_default(browser, server):
    server.store(catalog="normal", latencyMs=0)
    browser.get(server.base + "/store")
    form = browser.find_element(By.CSS_SELECTOR, 'form[action="/store"]')
    latency = form.find_element(By.NAME, "latencyMs")
    assert latency.get_attribute("value") == "0"
    form.find_element(By.CSS_SELECTOR, 'input[name="catalog"][value="slow"]').click()
    assert latency.get_attribute("value") == "2000", "choosing slow did not show its default latency"
    latency.clear()  # a person who empties the field still gets the default
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser, lambda: "flash=saved" in browser.current_url, message="the store form was not saved")
    assert server.api("GET", "/api/store")["latencyMs"] == 2000
    assert "(2000 ms)" in browser.find_element(By.CSS_SELECTOR, ".summary").text


def platform_fonts(driver, selector):
    """The fonts Chromium actually drew the first element matching `selector` with (CDP CSS domain)."""
    driver.execute_cdp_cmd("DOM.enable", {})
    driver.execute_cdp_cmd("CSS.enable", {})
    root = driver.execute_cdp_cmd("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    node = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, f"nothing matches {selector}"
    return {font["familyName"] for font in driver.execute_cdp_cmd("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]}


def test_emoji_are_drawn_with_the_same_colour_font_everywhere(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    drawn = {"top bar": platform_fonts(browser, ".brand .emoji"), "tile": platform_fonts(browser, "#tipjar .tile .emoji")}
    browser.get(server.base + "/catalog")
    drawn["catalog table"] = platform_fonts(browser, "table .emoji")
    drawn["catalog preview"] = platform_fonts(browser, ".preview .emoji")
    assert all(fonts == {"Noto Color Emoji"} for fonts in drawn.values()), drawn
