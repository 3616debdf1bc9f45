"""Real-browser end-to-end tests of the Tip Jar Dashboard.

Headless Chromium (Debian's `chromium` + `chromium-driver`) driven by Selenium, against the release
server binary on a temporary database, with the live `Templates/` and `Public/` of this checkout.
Each test is named after what a person does. The JSON API is used for setup only where the test is
not about that step (store outcomes, latency, a fresh install).

    Tests/Browser/run.sh              # installs what is missing, then runs pytest on this folder
    TIPJAR_BIN=/path/to/tipjar python3 -m pytest Tests/Browser

A failing test leaves a screenshot in Tests/Browser/output/<test>.png.
"""

import contextlib
import importlib.util
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import warnings

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUTPUT = HERE / "output"
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

THANK_YOU = "Thank you for the tip! One more heart."
PENDING = "Your purchase is waiting for approval. The heart appears once it's approved."
NETWORK_ERROR = "The App Store could not be reached. Check your connection and try again."
TIERS = ["tier-coffee", "tier-snack", "tier-lunch"]
# axe-core from the pinned axe-playwright-python wheel (Tests/Browser/requirements.txt): only its
# axe.min.js is used, injected through Selenium, so its Playwright wrapper is never imported.
AXE_JS = pathlib.Path(importlib.util.find_spec("axe_playwright_python").submodule_search_locations[0]) / "axe.min.js"
AXE_MINIMUM_VERSION = (4, 10)
# Idle, the server should stop at once; its graceful shutdown waits at most 10 s for requests in flight.
STOP_TIMEOUT = 5


# MARK: The server


class Server:
    """The running release binary: its base URL, the JSON API, and the store settings it started with."""

    def __init__(self, base):
        self.base = base
        self.defaults = None

    def api(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:  # a PATCH is a JSON Merge Patch (RFC 7396)
            request.add_header("Content-Type", "application/merge-patch+json" if method == "PATCH" else "application/json")
        with urllib.request.urlopen(request, timeout=15) as response:
            text = response.read().decode()
            return json.loads(text) if text else None

    def store(self, **settings):
        """`PATCH /api/store` with the given fields (a JSON Merge Patch: absent fields keep their value)."""
        return self.api("PATCH", "/api/store", settings)

    def create_install(self, **fields):
        """A fresh, launched install (`POST /api/installs`); returns its ID."""
        return self.api("POST", "/api/installs", {"launch": True, **fields})["id"]

    def install(self, install_id):
        return self.api("GET", "/api/installs/" + install_id)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_binary():
    binary = pathlib.Path(os.environ.get("TIPJAR_BIN", ".build/release/tipjar"))
    if not binary.is_absolute():
        binary = ROOT / binary
    if not binary.is_file():
        pytest.exit(f"no server binary at {binary}: run `swift build -c release --product tipjar` "
                    "or set TIPJAR_BIN", returncode=2)
    return binary


@contextlib.contextmanager
def running_server():
    """Starts `tipjar serve` on a free port with a temporary database; stops it with SIGTERM."""
    binary = server_binary()
    folder = pathlib.Path(tempfile.mkdtemp(prefix="tipjar-browser-"))
    log_path = folder / "server.log"
    process = None
    try:
        for _attempt in range(3):  # another process may take the free port between bind and start
            port = free_port()
            log = open(log_path, "ab")
            process = subprocess.Popen(
                [str(binary), "serve", "--port", str(port), "--database", str(folder / "tipjar.sqlite3"),
                 "--templates", str(ROOT / "Templates"), "--public", str(ROOT / "Public")],
                stdout=log, stderr=subprocess.STDOUT)
            log.close()
            candidate = Server(f"http://127.0.0.1:{port}")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and process.poll() is None:
                try:
                    candidate.defaults = candidate.api("GET", "/api/store")
                    break
                except (urllib.error.URLError, ConnectionError, OSError):
                    time.sleep(0.1)
            if candidate.defaults is not None:
                break
            if process.poll() is None:
                process.kill()
            process.wait()
            process = None
        if process is None:
            pytest.exit("the server did not start:\n" + log_path.read_text(errors="replace"), returncode=2)
        yield candidate
    finally:
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                warnings.warn(f"tipjar serve did not stop within {STOP_TIMEOUT} s of SIGTERM; killed it")
                process.kill()
                process.wait()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def server():
    """The server every test shares (its database fills up as the tests run)."""
    with running_server() as running:
        yield running


@pytest.fixture(autouse=True)
def normal_store(server):
    """Every test starts from the store settings the server started with, with the purchase sheet skipped
    (`skipPurchaseSheet`, Xcode's Disable Dialogs): a tap buys at once, as these tests expect. The sheet's own
    tests (test_purchase_sheet.py) turn it back on."""
    server.api("PATCH", "/api/store", {**server.defaults, "skipPurchaseSheet": True})
    yield


# MARK: The browser


def chromium(javascript=True):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--no-sandbox", "--headless=new", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,1000", "--lang=en-US"):
        options.add_argument(argument)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def save_screenshot_if_failed(request, driver):
    report = getattr(request.node, "report_call", None) or getattr(request.node, "report_setup", None)
    if report is not None and report.failed:
        OUTPUT.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        try:
            driver.save_screenshot(str(OUTPUT / f"{name}.png"))
        except Exception as error:  # the browser itself may be what failed
            print(f"could not save a screenshot: {error}")


@pytest.fixture(scope="session")
def chrome():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture
def browser(chrome, server, request):
    """The shared Chromium, one tab at 1280×1000; extra tabs are closed after the test."""
    chrome.set_window_size(1280, 1000)
    yield chrome
    save_screenshot_if_failed(request, chrome)
    handles = chrome.window_handles
    for handle in handles[1:]:
        chrome.switch_to.window(handle)
        chrome.close()
    chrome.switch_to.window(handles[0])
    chrome.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # a phone test emulates 390×844
    chrome.get("about:blank")


@pytest.fixture
def browser_without_javascript(server, request):
    driver = chromium(javascript=False)
    yield driver
    save_screenshot_if_failed(request, driver)
    driver.quit()


# MARK: Page helpers


def wait(driver, condition, timeout=10, message=""):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: condition(), message)


def tip_jar_state(driver):
    return driver.execute_script("var s = document.getElementById('tipjar-state'); return s ? s.dataset.state : null;")


def wait_for_state(driver, state, timeout=10):
    wait(driver, lambda: tip_jar_state(driver) == state, timeout, f"tip jar never reached {state!r}")


def open_install(driver, server, install_id, query="", state="ready"):
    driver.get(f"{server.base}/installs/{install_id}{query}")
    if state:
        wait_for_state(driver, state)


def tiles(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#tipjar .tiles button.tile")


def tile(driver, tier):
    return driver.find_element(By.CSS_SELECTOR, f"#tipjar .tiles button.tile.tier-{tier}")


def tiles_disabled(driver):
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#tipjar .tiles button.tile')).map(function (b) { return b.disabled; });")


def tier_classes(driver):
    return [next(c for c in element.get_attribute("class").split() if c.startswith("tier-")) for element in tiles(driver)]


# The live fragments are swapped under our feet, so these read the page in one script (no stale
# element between finding and reading).

def hearts(driver):
    return driver.execute_script(
        "var h = document.getElementById('hearts'); return h ? (h.textContent.match(/♥/g) || []).length : -1;")


def notice_text(driver):
    return driver.execute_script(
        "var n = document.querySelector('#feedback .notice'); return n ? n.innerText.trim() : null;")


def alert_is_modal(driver):
    return driver.execute_script(
        "var a = document.getElementById('alert'); return !!a && a.open && a.matches(':modal');")


AXE_RUN_JS = """
var done = arguments[arguments.length - 1];
axe.run(document, {resultTypes: ['violations']}).then(
  function (results) { done({version: axe.version, violations: results.violations}); },
  function (error) { done({version: axe.version, error: String(error)}); });"""


def serious_violations(driver):
    """axe-core's serious and critical violations on the current page, and a readable report.
    Fails when the injected axe-core is older than AXE_MINIMUM_VERSION."""
    driver.set_script_timeout(60)
    driver.execute_script(AXE_JS.read_text(encoding="utf-8"))
    results = driver.execute_async_script(AXE_RUN_JS)
    version = tuple(int(part) for part in results["version"].split(".")[:2])
    assert version >= AXE_MINIMUM_VERSION, f"axe-core {results['version']} is older than {AXE_MINIMUM_VERSION}"
    assert "error" not in results, f"axe-core failed: {results.get('error')}"
    found = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
    report = "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']} at " + "; ".join(" ".join(map(str, node["target"])) for node in v["nodes"])
        for v in found)
    return found, report


def set_store_in_browser(driver, server, catalog):
    """Uses the /store form as a person does: pick the catalog mode, Apply."""
    driver.get(server.base + "/store")
    form = driver.find_element(By.CSS_SELECTOR, 'form[action="/store"]')
    form.find_element(By.CSS_SELECTOR, f'input[name="catalog"][value="{catalog}"]').click()
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(driver, lambda: "flash=saved" in driver.current_url, message="the store form was not saved")
    assert server.api("GET", "/api/store")["catalog"] == catalog


# MARK: 1–2. Creating an install, buying a tip


def test_create_an_install_and_see_the_tiles_load_in_tier_order(browser, server):
    server.store(catalog="slow", latencyMs=1500)  # long enough to see the skeleton
    browser.get(server.base + "/installs")
    form = browser.find_element(By.CSS_SELECTOR, 'form[action="/installs"][method="post"]')
    form.find_element(By.NAME, "label").send_keys("Ana's iPhone")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait(browser, lambda: re.search(r"/installs/[0-9a-f-]{8,}$", browser.current_url), message="did not land on the install")
    skeleton = browser.execute_script(
        "var s = document.getElementById('tipjar-state');"
        "return {state: s.dataset.state, skeletons: s.querySelectorAll('.tile.skeleton').length,"
        " buttons: document.querySelectorAll('#tipjar button').length};")
    assert skeleton == {"state": "loading", "skeletons": 3, "buttons": 0}
    assert "Ana's iPhone" in browser.find_element(By.TAG_NAME, "h1").text
    wait_for_state(browser, "ready")
    assert tier_classes(browser) == TIERS
    assert [t.find_element(By.CLASS_NAME, "name").text for t in tiles(browser)] == ["Coffee", "Snack", "Lunch"]
    assert browser.find_element(By.ID, "tipjar").get_attribute("aria-busy") == "false"
    assert all(t.is_enabled() for t in tiles(browser))


def test_tap_the_coffee_tip_while_the_purchase_is_slow(browser, server):
    install_id = server.create_install()
    server.store(purchaseLatencyMs=1500)
    open_install(browser, server, install_id)
    assert hearts(browser) == 0
    browser.execute_script("window.__marker = 1; document.getElementById('feedback').__kept = 1;")
    started = time.monotonic()
    tile(browser, "coffee").click()
    assert tiles_disabled(browser) == [True, True, True]
    assert browser.find_element(By.ID, "tipjar").get_attribute("aria-busy") == "true"
    time.sleep(0.8)
    assert tiles_disabled(browser) == [True, True, True], "a tile was enabled while the purchase was open"
    wait(browser, lambda: hearts(browser) == 1, message="no new heart")
    assert time.monotonic() - started >= 1.4
    assert notice_text(browser) == THANK_YOU
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False], message="tiles stayed disabled")
    assert browser.execute_script("return window.__marker;") == 1, "the page was reloaded"
    assert browser.execute_script("return document.getElementById('feedback').__kept;") == 1, \
        "the feedback live region was replaced instead of updated (screen readers miss the thank-you)"
    assert server.install(install_id)["hearts"] == 1


# MARK: 3–4. Catalog outage, store error


def test_catalog_fails_then_retry_loads_the_tiles(browser, server):
    install_id = server.create_install()
    set_store_in_browser(browser, server, "failing")
    open_install(browser, server, install_id, state="unavailable")
    empty = browser.find_element(By.CSS_SELECTOR, "#tipjar-state .empty")
    assert "The tips couldn't be loaded." in empty.text
    assert tiles(browser) == []
    install_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    set_store_in_browser(browser, server, "normal")
    browser.close()
    browser.switch_to.window(install_tab)
    browser.execute_script("window.__marker = 1;")
    retry = browser.find_element(By.CSS_SELECTOR, "#tipjar-state .empty button")
    assert retry.text == "Retry"
    retry.click()
    wait_for_state(browser, "ready")
    assert tier_classes(browser) == TIERS
    assert browser.execute_script("return window.__marker;") == 1


def test_failed_purchase_opens_a_modal_alert(browser, server):
    install_id = server.create_install()
    server.store(purchaseOutcome="failed", purchaseError="networkError")
    open_install(browser, server, install_id)
    tile(browser, "coffee").click()
    wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
    dialog = browser.find_element(By.CSS_SELECTOR, "dialog#alert")
    assert dialog.find_element(By.TAG_NAME, "h2").text == "Purchase failed"
    assert NETWORK_ERROR in dialog.text
    dialog.find_element(By.CSS_SELECTOR, "button").click()
    wait(browser, lambda: not browser.execute_script("var a = document.getElementById('alert'); return !!a && a.open;"),
         message="OK did not close the alert")
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False], message="tiles stayed disabled")
    wait(browser, lambda: browser.switch_to.active_element == tile(browser, "coffee"),
         message="focus did not return to the tapped tile when the alert closed")
    assert hearts(browser) == 0


# MARK: 5–6. Localization and layout


def test_portuguese_install_in_brazil_shows_portuguese_names_and_real_prices(browser, server):
    browser.get(server.base + "/installs")
    form = browser.find_element(By.CSS_SELECTOR, 'form[action="/installs"][method="post"]')
    Select(form.find_element(By.NAME, "locale")).select_by_value("pt-BR")
    Select(form.find_element(By.NAME, "storefront")).select_by_value("BRA")
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for_state(browser, "ready")
    assert browser.find_element(By.ID, "credits-title").text == "Informações e Créditos"
    assert [t.find_element(By.CLASS_NAME, "name").text for t in tiles(browser)] == ["Café", "Lanche", "Almoço completo"]
    prices = [t.find_element(By.CLASS_NAME, "price").text for t in tiles(browser)]
    assert all(re.fullmatch(r"R\$\s\d+,\d\d", price) for price in prices), prices
    assert browser.find_element(By.CSS_SELECTOR, "section.phone").get_attribute("lang") == "pt-BR"


LINE_COUNT_JS = """
return Array.from(document.querySelectorAll('#tipjar .tiles .name')).map(function (name) {
  var range = document.createRange(); range.selectNodeContents(name);
  var tops = {}; Array.from(range.getClientRects()).forEach(function (r) { if (r.width > 0) tops[Math.round(r.top)] = 1; });
  return Object.keys(tops).length;
});"""

RECTS_JS = """
return Array.from(document.querySelectorAll(arguments[0])).map(function (e) {
  var r = e.getBoundingClientRect(); return {y: r.top, bottom: r.bottom, height: r.height,
  scrollHeight: e.scrollHeight, clientHeight: e.clientHeight};
});"""


def test_prices_stay_aligned_when_a_name_wraps_and_tiles_stack_at_the_largest_text(browser, server):
    install_id = server.create_install(locale="pt-BR", storefront="BRA")
    # Find a window width at which "Almoço completo" wraps to two lines and "Café" does not.
    for width in (520, 460, 420, 390, 360):
        browser.set_window_size(width, 1000)
        open_install(browser, server, install_id)
        lines = browser.execute_script(LINE_COUNT_JS)
        if lines[2] == 2 and lines[0] == 1:
            break
    else:
        pytest.fail(f"no tested width wraps only the lunch name; lines per name at 360px: {lines}")
    prices = browser.execute_script(RECTS_JS, "#tipjar .tiles .price")
    ys = [p["y"] for p in prices]
    assert max(ys) - min(ys) <= 1, f"prices not on one baseline at {width}px: {ys}"

    open_install(browser, server, install_id, "?textSize=accessibility")
    rects = browser.execute_script(RECTS_JS, "#tipjar .tiles button.tile")
    assert len(rects) == 3
    assert all(a["y"] < b["y"] and a["bottom"] <= b["y"] + 1 for a, b in zip(rects, rects[1:])), \
        f"tiles do not stack vertically: {rects}"
    names = browser.execute_script(RECTS_JS, "#tipjar .tiles .name")
    assert all(n["scrollHeight"] <= n["clientHeight"] for n in names), f"a name is clipped: {names}"
    assert [t.find_element(By.CLASS_NAME, "name").text for t in tiles(browser)] == ["Café", "Lanche", "Almoço completo"]


# MARK: 7–8. Without JavaScript; Ask to Buy approved elsewhere


def test_buy_a_tip_with_javascript_disabled(browser_without_javascript, server):
    browser = browser_without_javascript
    install_id = server.create_install()
    browser.get(f"{server.base}/installs/{install_id}")
    # Without JavaScript the page's instant refresh loads the tips (no click).
    wait(browser, lambda: browser.find_element(By.ID, "tipjar-state").get_attribute("data-state") == "ready")
    assert "load=now" in browser.current_url
    assert tier_classes(browser) == TIERS
    tile(browser, "coffee").click()
    wait(browser, lambda: "feedback=purchased" in browser.current_url, message="no redirect after the form post")
    assert hearts(browser) == 1
    assert notice_text(browser) == THANK_YOU
    assert browser.find_element(By.ID, "tipjar-state").get_attribute("data-state") == "ready"
    assert server.install(install_id)["hearts"] == 1


def test_ask_to_buy_approved_in_another_tab_shows_the_heart_without_reload(browser, server):
    install_id = server.create_install()
    server.store(purchaseOutcome="pending")
    open_install(browser, server, install_id)
    browser.execute_script("window.__marker = 1;")
    tile(browser, "coffee").click()
    wait(browser, lambda: notice_text(browser) == PENDING, message="no pending notice")
    assert hearts(browser) == 0
    install_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(server.base + "/store")
    browser.find_element(
        By.XPATH, f"//tr[.//a[@href='/installs/{install_id}']]//button[normalize-space()='Approve']").click()
    wait(browser, lambda: "flash=approved" in browser.current_url, message="approve did not go through")
    browser.switch_to.window(install_tab)
    wait(browser, lambda: hearts(browser) == 1, timeout=10, message="the approved heart never appeared (live poll)")
    assert browser.execute_script("return window.__marker;") == 1, "the page was reloaded"
    assert server.install(install_id)["hearts"] == 1


# MARK: 9. Accessibility


def test_pages_have_no_serious_accessibility_violations(browser, server):
    install_id = server.create_install(label="Ana's iPhone")
    # Fill the tables: a counted tip (refund form on /store, ledger, events) and one waiting for approval.
    bought = server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.coffee"})
    server.store(purchaseOutcome="pending")
    server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": "com.example.tipjar.tip.snack"})
    server.api("PATCH", "/api/store", server.defaults)
    failures = []
    account = server.install(install_id)["accountID"]
    for path, state in (("/", None), ("/installs", None), (f"/installs/{install_id}", "ready"),
                        ("/store", None), ("/catalog", None), ("/transactions", None), (f"/accounts/{account}", None),
                        (f"/transactions/{bought['transactionID']}", None),
                        ("/confirm/store-reset", None), (f"/confirm/installs/{install_id}/delete", None)):
        browser.get(server.base + path)
        if state:
            wait_for_state(browser, state)
        found, report = serious_violations(browser)
        if found:
            failures.append(f"{path}: {report}")
    assert not failures, "\n".join(failures)


def test_feedback_states_have_no_serious_accessibility_violations(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    failures = []

    tile(browser, "coffee").click()
    wait(browser, lambda: notice_text(browser) == THANK_YOU, message="no thank-you")
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False])
    found, report = serious_violations(browser)
    if found:
        failures.append("thank-you notice: " + report)

    server.store(purchaseOutcome="pending")
    tile(browser, "snack").click()
    wait(browser, lambda: notice_text(browser) == PENDING, message="no pending notice")
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False])
    found, report = serious_violations(browser)
    if found:
        failures.append("pending notice: " + report)

    server.store(purchaseOutcome="failed", purchaseError="networkError")
    tile(browser, "lunch").click()
    wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
    found, report = serious_violations(browser)
    if found:
        failures.append("alert dialog: " + report)
    assert not failures, "\n".join(failures)


def test_every_tile_is_a_button_named_with_its_price(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    assert len(tiles(browser)) == 3
    for element in browser.find_elements(By.CSS_SELECTOR, "#tipjar .tiles .tile"):
        assert element.tag_name == "button"
        price = element.find_element(By.CLASS_NAME, "price").text
        name = element.find_element(By.CLASS_NAME, "name").text
        assert price and price in element.accessible_name, (element.accessible_name, price)
        assert name in element.accessible_name


def active_is(driver, element):
    return driver.switch_to.active_element == element


def press(driver, key):
    ActionChains(driver).send_keys(key).perform()


def test_buy_a_tip_with_the_keyboard_alone(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    coffee = tile(browser, "coffee")
    for _ in range(40):
        press(browser, Keys.TAB)
        if active_is(browser, coffee):
            break
    else:
        pytest.fail("Tab never reached the coffee tile")
    press(browser, Keys.ENTER)
    wait(browser, lambda: hearts(browser) == 1, message="Enter on the focused tile bought nothing")
    assert notice_text(browser) == THANK_YOU
    wait(browser, lambda: tiles_disabled(browser) == [False, False, False])
    assert server.install(install_id)["hearts"] == 1
    # Focus comes back to the tile, so a second Enter buys again without hunting for it.
    wait(browser, lambda: active_is(browser, coffee), message="focus was lost after the purchase")
    # A failed purchase: the alert takes focus, Enter on OK closes it and focus returns to the tile.
    server.store(purchaseOutcome="failed", purchaseError="networkError")
    press(browser, Keys.ENTER)
    wait(browser, lambda: alert_is_modal(browser), message="no modal alert")
    ok = browser.find_element(By.CSS_SELECTOR, "dialog#alert button")
    wait(browser, lambda: active_is(browser, ok), message="the alert's OK button did not take focus")
    press(browser, Keys.ENTER)
    wait(browser, lambda: not alert_is_modal(browser), message="Enter did not close the alert")
    wait(browser, lambda: active_is(browser, coffee), message="focus did not return to the tile after the alert")
    assert hearts(browser) == 1
