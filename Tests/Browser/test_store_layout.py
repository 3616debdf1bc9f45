"""Real-browser tests of /store's layout at phone width: the page in groups (outages and outcomes, failure
injection, traps, queues, file settings, session controls, scenarios), each reachable from the index at the
top and applied on its own form, at most half as tall as the one long form it replaced, never wider than
the phone; the "Now" summary naming every setting that is not at its default. Plus /transactions at 390 px.

Same server, browser and helpers as test_dashboard.py (run with Tests/Browser/run.sh).
"""

from selenium.webdriver.common.by import By

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    browser, browser_without_javascript, chrome, normal_store, serious_violations, server, wait)
from test_phone_screen import PHONE, check_page_fits, emulate_phone

# document.documentElement.scrollHeight of /store at 390×844 with the default settings, before the groups
# (one form, one Apply after every fieldset): 6,675 px as first measured (7,101 px in this Debian Chromium, whose
# fonts are taller); the page must be at most half the smaller.
HEIGHT_BEFORE_GROUPS = 6675
GROUPS = ["settings", "failures", "traps", "queues", "file-settings", "session", "scenarios"]


def page_height(driver):
    return driver.execute_script("return document.documentElement.scrollHeight;")


def group_form(driver, group):
    """The group's form, its <details> opened first as a person taps its summary."""
    details = driver.find_element(By.CSS_SELECTOR, f"#{group} details.group")
    if details.get_attribute("open") is None:
        details.find_element(By.TAG_NAME, "summary").click()
    return driver.find_element(By.CSS_SELECTOR, f'form[action="/store"]:has(input[name="group"][value="{group}"])')


def apply(driver, group):
    group_form(driver, group).find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(driver, lambda: f"flash=saved-{group}" in driver.current_url, message=f"the {group} form was not applied")


def test_the_store_page_at_phone_width_is_at_most_half_as_tall_and_never_wider_than_the_phone(browser, server):
    emulate_phone(browser)
    browser.get(server.base + "/store")
    height = page_height(browser)
    assert height <= HEIGHT_BEFORE_GROUPS // 2, f"/store is {height} px tall at 390 px (at most {HEIGHT_BEFORE_GROUPS // 2})"
    assert check_page_fits(browser, "/store") == []
    found, report = serious_violations(browser)
    assert not found, report


def listener_traps(driver):
    return driver.execute_script(
        "var dt = Array.from(document.querySelectorAll('#now .summary dt')).find(function (t) {"
        " return t.textContent === 'Listener traps'; });"
        "return dt ? dt.nextElementSibling.textContent.trim() : null;")


def test_every_group_is_linked_from_the_index_at_the_top(browser, server):
    emulate_phone(browser)
    browser.get(server.base + "/store")
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('nav.toc a')).map(function (a) {"
        " return {target: a.getAttribute('href').slice(1), top: a.getBoundingClientRect().top}; });")
    targets = [link["target"] for link in links]
    for group in GROUPS:
        assert group in targets, f"the index has no link to #{group}"
        assert browser.find_elements(By.ID, group), f"no #{group} on the page"
    assert all(link["top"] < PHONE[1] for link in links), "the index is not on the first screen"


def click_centred(driver, element):
    """Clicks `element` scrolled to the middle of the screen: WebDriver scrolls a control to the bottom edge, under
    the sticky Apply bar, where a person's Tab (which honours `scroll-padding-bottom`) never leaves it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


def test_applying_one_group_keeps_what_another_group_set(browser_without_javascript, server):
    driver = browser_without_javascript  # a plain form POST
    driver.get(server.base + "/store")
    click_centred(driver, group_form(driver, "traps").find_element(By.NAME, "crashBeforeFinish"))
    apply(driver, "traps")
    click_centred(driver, group_form(driver, "failures").find_element(By.CSS_SELECTOR, 'select[name="failSync"] option[value="networkError"]'))
    apply(driver, "failures")
    click_centred(driver, group_form(driver, "settings").find_element(By.CSS_SELECTOR, 'input[name="catalog"][value="empty"]'))
    apply(driver, "settings")
    settings = server.api("GET", "/api/store")
    assert settings["crashBeforeFinish"] is True, "applying failure injection and outcomes turned the trap off"
    assert settings["failures"]["sync"] == "networkError", "applying the outcomes cleared the failure"
    assert settings["catalog"] == "empty"
    assert "saved; the other groups kept their settings" in driver.find_element(By.ID, "settings").text


def test_the_now_summary_names_the_listener_traps_when_they_are_on(browser, server):
    browser.get(server.base + "/store")
    assert listener_traps(browser) is None, "Now names only what is off its default"
    server.store(listenerReemits=2, crashBeforeFinish=True)
    browser.get(server.base + "/store")
    text = listener_traps(browser)
    assert "re-emits 2×" in text and "crashes before finish()" in text, text
    browser.get(server.base + "/")
    text = browser.find_element(By.CSS_SELECTOR, ".summary").text
    assert "re-emits 2×" in text and "crashes before finish()" in text, text


def test_transactions_at_phone_width_show_product_and_status_without_scrolling(browser, server):
    install_id = server.create_install()
    server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
    emulate_phone(browser)
    browser.get(server.base + "/transactions")
    assert check_page_fits(browser, "/transactions") == []
    edges = browser.execute_script(
        "var heads = Array.from(document.querySelectorAll('table.transactions thead th'));"
        "function edge(name) { var th = heads.find(function (h) { return h.textContent === name; });"
        " return th ? th.getBoundingClientRect().right : null; }"
        "return {product: edge('Product'), status: edge('Status'), width: innerWidth};")
    assert edges["product"] is not None and edges["status"] is not None, edges
    assert edges["status"] <= edges["width"], f"the Status column ends at {edges['status']} px, past the {edges['width']} px screen"
    fields = browser.execute_script(
        "return Array.from(document.querySelectorAll('form.filters input:not([type=hidden]), form.filters select'))"
        ".map(function (f) { var r = f.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.width)]; });")
    lefts = sorted({left for left, _ in fields})
    widths = {width for _, width in fields}
    assert len(lefts) <= 2 and len(widths) == 1, f"the filters are not in aligned columns: {fields}"
