"""Real-browser tests of what a StoreKit developer sees: the transaction page in StoreKit's words, a diagram that
does not forget, tables that fit, the largest text size, the sheet's names, /store on a phone, focus and clean URLs
without JavaScript, the README's tour as written, and the small things.

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh).
"""

import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    browser, browser_without_javascript, chrome, normal_store, open_install, server, serious_violations, tile,
    tiles, wait, wait_for_state)
from test_phone_screen import COFFEE, PHONE, buy, emulate_phone
from test_purchase_sheet import open_sheet, sheet_is_modal
from test_store_layout import click_centred

LONG_ACCOUNT = ("appleseed.johnny.the.longest.account" + "x" * 45 + "@icloud-example.com")[:100]
LONG_LABEL = "a-label-without-any-space-" * 3


def no_violations(driver):
    found, report = serious_violations(driver)
    assert not found, report


def diagram_steps(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('ol.sequence-steps li')).map(function (li) { return li.textContent; });")


# 1. The transaction page


def test_the_transaction_page_shows_storekits_fields_a_copyable_jws_and_a_refund_as_revoked(browser, server):
    install_id = server.create_install(accountID="dev-1")
    transaction_id = buy(server, install_id)["transactionID"]
    browser.get(f"{server.base}/transactions/{transaction_id}")
    names = browser.execute_script(
        "return Array.from(document.querySelectorAll('#fields dt code')).map(function (c) { return c.textContent; });")
    for name in ("originalID", "purchasedQuantity", "price", "currency", "storefront", "ownershipType", "environment",
                 "signedDate", "revocationDate", "revocationReason", "appAccountToken"):
        assert name in names, name
    assert browser.find_element(By.CSS_SELECTOR, "details#payload summary").is_displayed()
    copy = browser.find_element(By.CSS_SELECTOR, "button.copy[data-copy=jws]")
    assert copy.is_displayed(), "with JavaScript the Copy button shows"
    copy.click()
    wait(browser, lambda: browser.find_element(By.CSS_SELECTOR, ".copy-status").text != "", message="copy said nothing")
    no_violations(browser)
    server.api("POST", f"/api/transactions/{transaction_id}/refund", {"reason": "developerIssue"})
    assert server.api("GET", f"/api/transactions/{transaction_id}")["status"] == "revoked"
    browser.get(f"{server.base}/transactions/{transaction_id}")
    status = browser.find_element(By.CSS_SELECTOR, "dd.status-revoked").text
    assert status.startswith("revoked") and ".developerIssue" in status
    assert not any("(trap)" in step for step in diagram_steps(browser)), "a refund is not a trap"
    no_violations(browser)


def test_without_javascript_the_jws_is_selectable_text_and_no_copy_button_shows(browser_without_javascript, server):
    install_id = server.create_install()
    transaction_id = buy(server, install_id)["transactionID"]
    driver = browser_without_javascript
    driver.get(f"{server.base}/transactions/{transaction_id}")
    assert driver.find_element(By.ID, "jws").text.count(".") == 2
    assert not driver.find_element(By.CSS_SELECTOR, "button.copy").is_displayed()


# 2. The diagram is drawn from what is stored


def test_a_transactions_diagram_keeps_its_sheet_step_after_many_unrelated_events(browser, server):
    server.store(skipPurchaseSheet=False)
    install_id = server.create_install()
    transaction_id = buy(server, install_id)["transactionID"]
    browser.get(f"{server.base}/transactions/{transaction_id}")
    drawn = diagram_steps(browser)
    assert "App Store → App: sheet: Confirm." in drawn
    for _ in range(60):  # 120 timeline events on the install: more than the timeline keeps of it
        server.api("POST", f"/api/installs/{install_id}/stop")
        server.api("POST", f"/api/installs/{install_id}/launch")
    browser.get(f"{server.base}/transactions/{transaction_id}")
    assert diagram_steps(browser) == drawn


# 3. Tables that fit


def tables_overflowing(driver):
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('.table-scroll')).filter(function (r) {
          return r.scrollWidth > r.clientWidth + 1; }).map(function (r) {
          return (r.getAttribute('aria-label') || r.getAttribute('aria-labelledby')) + ' ' + r.scrollWidth + '>' + r.clientWidth; });""")


def column_visible(driver, region_selector, header):
    return driver.execute_script("""
        var region = document.querySelector(arguments[0]), name = arguments[1];
        var th = Array.from(region.querySelectorAll('th')).find(function (t) { return t.textContent.trim() === name; });
        if (!th) { return 'no column ' + name; }
        var r = region.getBoundingClientRect(), c = th.getBoundingClientRect();
        return c.right <= r.right + 1 ? true : name + ' ends at ' + c.right + ' past ' + r.right;""",
                                 region_selector, header)


def test_every_table_fits_at_1280_and_shows_the_columns_a_reader_needs_at_390(browser, server):
    install_id = server.create_install(accountID=LONG_ACCOUNT, label=LONG_LABEL)
    buy(server, install_id)
    account = urllib.request.quote(LONG_ACCOUNT, safe="")
    pages = [("/installs", '[aria-label="Installs"]', "Hearts"),
             (f"/transactions?accountID={account}", '[aria-label="Transactions"]', "Status"),
             (f"/accounts/{account}", '[aria-labelledby="all-title"]', None),
             (f"/installs/{install_id}", "#ledger-scroll", "Outcome")]
    for path, _, _ in pages:
        browser.get(server.base + path)
        assert tables_overflowing(browser) == [], path
    account_page = server.base + pages[2][0]
    browser.get(account_page)
    assert "Apple Account" not in [th.text for th in browser.find_elements(By.CSS_SELECTOR, "table th")], \
        "the account page does not repeat its account"
    emulate_phone(browser)
    for path, region, column in pages:
        if column is None:
            continue
        browser.get(server.base + path)
        assert column_visible(browser, region, column) is True, path
    no_violations(browser)


# 4. The largest text size


def test_at_ax5_in_pt_br_no_heading_word_breaks_the_hearts_stay_on_one_line_and_the_sheet_shows_everything(browser, server):
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    for _ in range(5):
        buy(server, install_id)
    emulate_phone(browser)
    open_install(browser, server, install_id, "?textSize=AX5")
    broken = browser.execute_script("""
        var h = document.querySelector('.phone h2'), text = h.firstChild, words = [], at = 0;
        text.textContent.split(' ').forEach(function (w) {
          var range = document.createRange(); range.setStart(text, at); range.setEnd(text, at + w.length);
          var tops = new Set(Array.from(range.getClientRects()).map(function (r) { return Math.round(r.top); }));
          if (tops.size > 1) { words.push(w); }
          at += w.length + 1; });
        return words;""")
    assert broken == [], f"words broken inside: {broken}"
    lines = browser.execute_script("""
        var range = document.createRange(); range.selectNodeContents(document.querySelector('#hearts .hearts'));
        return new Set(Array.from(range.getClientRects()).map(function (r) { return Math.round(r.top); })).size;""")
    assert lines == 1, "the five hearts on one line"
    server.store(skipPurchaseSheet=False)
    open_install(browser, server, install_id, "?textSize=AX5")
    tile(browser, "coffee").click()
    wait(browser, lambda: sheet_is_modal(browser), message="no sheet")
    outside = browser.execute_script("""
        return ['sheet-title', 'sheet-cancel', 'sheet-name', 'sheet-price', 'sheet-account', 'sheet-confirm'].filter(function (id) {
          var r = document.getElementById(id).getBoundingClientRect(), d = document.getElementById('purchase-sheet').getBoundingClientRect();
          var visible = r.top >= Math.max(0, d.top) - 1 && r.top < Math.min(innerHeight, d.bottom) && r.bottom > 0;
          var hit = document.elementFromPoint(r.left + Math.min(8, r.width / 2), r.top + Math.min(8, r.height / 2));
          return !(visible && hit && (hit === document.getElementById(id) || document.getElementById(id).contains(hit)));
        });""")
    # What scrolls inside the sheet may be below its fold; the title, Cancel and Confirm never are.
    assert not {"sheet-title", "sheet-cancel", "sheet-confirm"} & set(outside), outside
    no_violations(browser)


# 5. Names on the sheet


def test_a_pt_br_sheet_says_in_one_line_why_it_names_the_tip_in_english(browser, server):
    pt = server.create_install(locale="pt-BR", storefront="BRA")
    open_sheet(browser, server, pt)
    line = browser.find_element(By.ID, "sheet-names").text
    assert "Coffee" in line and "Café" in line
    en = server.create_install()
    open_sheet(browser, server, en)
    assert browser.find_elements(By.ID, "sheet-names") == []


# 6. /store on a phone


def test_store_on_a_phone_has_its_first_apply_on_the_first_screen_and_each_setting_under_its_api(browser, server):
    server.store(listenerReemitDelayMs=750, syncReplaysFinished=True)
    emulate_phone(browser)
    browser.get(server.base + "/store")
    apply = browser.find_element(By.CSS_SELECTOR, "form .apply button")
    box = browser.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom, innerHeight];", apply)
    assert 0 <= box[0] and box[1] <= min(box[2], PHONE[1]), f"first Apply at {box[:2]} on a screen {box[2]} px high"
    legend = lambda name: browser.execute_script(  # noqa: E731
        "var i = document.querySelector('[name=\"' + arguments[0] + '\"]'); return i.closest('fieldset').querySelector('legend').textContent;", name)
    assert legend("listenerReemitDelayMs").startswith("Listener traps")
    assert "AppStore.sync()" in legend("syncReplaysFinished")
    assert "re-emits 750 ms later" in browser.find_element(By.ID, "now").text
    no_violations(browser)


# 7. Focus and flow without JavaScript


def test_without_javascript_relaunch_returns_to_the_app_controls_tiles_show_at_once_and_retry_has_a_clean_url(
        browser, browser_without_javascript, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)  # the app loaded its tips
    driver = browser_without_javascript
    driver.get(f"{server.base}/installs/{install_id}")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#tipjar .tiles button.tile")) == 3, "tiles at once"
    driver.find_element(By.XPATH, "//button[normalize-space()='Relaunch']").click()
    wait(driver, lambda: driver.current_url.endswith("#actions"), message="no #actions after Relaunch")
    active = driver.execute_script("return document.activeElement.id || document.activeElement.tagName;")
    if active != "actions":  # the fragment moved the sequential focus starting point: Tab is next to it
        driver.switch_to.active_element.send_keys(Keys.TAB)
        active = driver.execute_script("return document.activeElement.textContent.trim();")
        assert active == "Relaunch", active
    server.store(catalog="failing")
    try:
        driver.get(f"{server.base}/installs/{install_id}?load=now")
        driver.find_element(By.XPATH, "//button[normalize-space()='Retry']").click()
        wait(driver, lambda: "load=now" in driver.current_url, message="Retry went nowhere")
        assert not driver.current_url.endswith("?") and "/offers" not in driver.current_url
    finally:
        server.store(catalog="normal")


# 8. The README's tour, as written


def test_the_readme_tour_works_when_the_reader_moves_between_pages(browser, server):
    server.store(skipPurchaseSheet=False)
    browser.get(server.base + "/installs")
    browser.find_element(By.XPATH, "//button[normalize-space()='Create install']").click()  # 1
    wait_for_state(browser, "ready")
    install_url = browser.current_url.split("?")[0]
    # What the tour says the screen says, in its words.
    assert browser.find_element(By.ID, "credits-title").text == "Info and Credits"
    assert browser.find_element(By.ID, "hearts").text.replace(" ", "") == "♡♡♡♡♡"
    assert [t.text.split("\n") for t in tiles(browser)] == [["☕", "Coffee", "$0.99"], ["🥐", "Snack", "$2.99"], ["🍱", "Lunch", "$4.99"]]
    tile(browser, "coffee").click()  # 2
    wait(browser, lambda: sheet_is_modal(browser), message="no sheet")
    sheet = browser.find_element(By.ID, "purchase-sheet").text
    for words in ("App Store", "Cancel", "Coffee", "In-App Purchase", "$0.99", "Account", "Confirm"):
        assert words in sheet, f"the sheet does not say {words!r}: {sheet!r}"
    browser.find_element(By.ID, "sheet-confirm").click()  # 3
    wait(browser, lambda: browser.execute_script("return (document.getElementById('hearts').textContent.match(/♥/g) || []).length;") == 1)
    wait(browser, lambda: "Thank you for the tip! One more heart." in browser.find_element(By.ID, "feedback").text)
    assert "Thank you for supporting the app!" in browser.find_element(By.CSS_SELECTOR, "section.phone").text
    row = browser.find_element(By.CSS_SELECTOR, "#ledger tbody tr").find_elements(By.TAG_NAME, "td")
    assert (row[1].text, row[3].text, row[5].text) == ("counted", "purchase", "yes"), [cell.text for cell in row]
    browser.get(server.base + "/store")  # 4: Store, failing, Apply; back to the install from Installs; Relaunch
    click_centred(browser, browser.find_element(By.CSS_SELECTOR, 'input[name="catalog"][value="failing"]'))
    apply_first_group(browser)
    try:
        browser.get(server.base + "/installs")
        browser.find_element(By.CSS_SELECTOR, f'.table-scroll a[href="{install_url.replace(server.base, "")}"]').click()
        browser.find_element(By.XPATH, "//button[normalize-space()='Relaunch']").click()
        wait_for_state(browser, "unavailable")
        empty = browser.find_element(By.CSS_SELECTOR, "#tipjar-state .empty")
        assert empty.text.split("\n") == ["The tips couldn't be loaded.", "Retry"], empty.text
        assert browser.find_element(By.CSS_SELECTOR, "#tipjar-state .empty button").is_displayed(), "Retry"
    finally:
        browser.get(server.base + "/store")  # 5: normal, Apply; the install opened afresh loads the tiles by itself
        click_centred(browser, browser.find_element(By.CSS_SELECTOR, 'input[name="catalog"][value="normal"]'))
        apply_first_group(browser)
    browser.get(install_url)
    wait_for_state(browser, "ready")
    assert len(tiles(browser)) == 3


def apply_first_group(browser):
    """Presses the first group's Apply on /store and waits for its answer: a page asked for before the form's redirect
    came back would be replaced by it."""
    click_centred(browser, browser.find_element(By.CSS_SELECTOR, "form .apply button"))
    wait(browser, lambda: "flash=saved-" in browser.current_url, message="the group was not applied")


# 9. Small things


def test_small_things_a_disabled_tile_says_why_codes_are_text_sized_a_short_top_bar_with_every_link_and_a_readable_legend(browser, server):
    install_id = server.create_install()
    buy(server, install_id)
    open_sheet(browser, server, install_id)
    browser.switch_to.new_window("tab")
    open_install(browser, server, install_id)
    wait(browser, lambda: browser.find_element(By.ID, "purchase-state").text != "", message="no reason for disabled tiles")
    browser.close()
    browser.switch_to.window(browser.window_handles[0])
    browser.find_element(By.ID, "sheet-cancel").click()
    browser.get(f"{server.base}/transactions")
    sizes = browser.execute_script(
        "var c = document.querySelector('table.list td a code'); return [getComputedStyle(c).fontSize, getComputedStyle(c.closest('td')).fontSize];")
    assert sizes[0] == sizes[1], sizes
    tops = browser.execute_script(
        "return Array.from(document.querySelectorAll('.search.filters label')).map(function (l) { return Math.round(l.getBoundingClientRect().top); });")
    assert len(set(tops)) == 1, f"the filter labels sit level: {tops}"
    browser.get(server.base + "/confirm/transactions-clear")
    centres = browser.execute_script(
        "return Array.from(document.querySelectorAll('form.buttons button, form.buttons a')).map(function (e) {"
        " var r = e.getBoundingClientRect(); return Math.round(r.top + r.height / 2); });")
    assert len(set(centres)) == 1, f"Cancel is centred with its button: {centres}"
    browser.get(server.base + "/store")
    browser.execute_script("document.querySelector('#session details').open = true;")
    assert tables_overflowing(browser) == [], "the session controls' refund column fits at 1280"
    emulate_phone(browser)
    browser.get(f"{server.base}/installs/{install_id}")
    assert browser.execute_script("return document.querySelector('.topbar').getBoundingClientRect().height;") <= 64
    off_screen = browser.execute_script(
        "return Array.from(document.querySelectorAll('.topbar nav a')).filter(function (a) {"
        " var r = a.getBoundingClientRect(); return r.right > window.innerWidth || r.left < 0; })"
        ".map(function (a) { return a.textContent; });")
    assert off_screen == [], f"top bar links off the screen: {off_screen}"
    legend = browser.execute_script(
        "var t = document.querySelector('.sequence-diagram text.legend-text'); return t.getBoundingClientRect().height;")
    assert legend >= 12, f"legend text {legend} px high"
    browser.get(server.base + "/")
    widths = browser.execute_script("return Array.from(document.querySelectorAll('.cards .card')).map(function (c) { return Math.round(c.getBoundingClientRect().top); });")
    assert len(set(widths)) in (1, len(widths)), f"cards 3 across or 1 per row: {widths}"
    browser.get(server.base + "/store")
    summary = browser.find_element(By.CSS_SELECTOR, "summary")
    browser.execute_script("arguments[0].focus();", summary)
    browser.switch_to.active_element.send_keys(Keys.SHIFT + Keys.TAB)
    browser.switch_to.active_element.send_keys(Keys.TAB)
    assert browser.execute_script("return getComputedStyle(document.activeElement).outlineWidth;") in ("3px",) or \
        browser.execute_script("return document.activeElement.tagName;") != "SUMMARY"
