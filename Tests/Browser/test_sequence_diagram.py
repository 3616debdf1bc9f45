"""Real-browser tests of the transaction lives: the server-drawn SVG sequence diagrams on the install page and on a
transaction's page (`/transactions/{id}`) read on a 390 px phone (no horizontal overflow, labels inside the
drawing), have an accessible name and a text alternative, and leave axe-core with no serious or critical violation.

Same server, browser and helpers as test_dashboard.py (run both with Tests/Browser/run.sh).
"""

import socket

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    browser, chrome, normal_store, open_install, serious_violations, server, tile, wait)
from test_phone_screen import COFFEE, PHONE, buy, emulate_phone

DIAGRAMS_JS = """
return Array.from(document.querySelectorAll('svg.sequence-diagram')).map(function (svg) {
  var box = svg.getBoundingClientRect();
  var figure = svg.closest('figure').getBoundingClientRect();
  var labelled = (svg.getAttribute('aria-labelledby') || '').split(' ').map(function (id) {
    var element = document.getElementById(id); return element ? element.textContent : ''; }).join(' ').trim();
  var view = svg.viewBox.baseVal;
  var outside = Array.from(svg.querySelectorAll('text')).filter(function (text) {
    var b = text.getBBox(); return b.x < 0 || b.x + b.width > view.width + 0.5; }).map(function (t) { return t.textContent; });
  var spilling = Array.from(svg.querySelectorAll('g.step')).filter(function (step) {
    var note = step.querySelector('rect.note'); if (!note) { return false; }
    var n = note.getBBox();
    return Array.from(step.querySelectorAll('text.label')).some(function (text) {
      var b = text.getBBox(); return b.x < n.x || b.x + b.width > n.x + n.width; }); }).map(function (s) { return s.textContent; });
  var headings = Array.from(svg.querySelectorAll('text.lane-name')).filter(function (text) {
    var head = text.previousElementSibling.getBBox(), b = text.getBBox();
    return b.x < head.x || b.x + b.width > head.x + head.width; }).map(function (t) { return t.textContent; });
  var list = svg.parentElement.querySelector('ol.sequence-steps');
  return {role: svg.getAttribute('role'), name: labelled, left: box.left, right: box.right, width: box.width,
          figureRight: figure.right, height: box.height, outside: outside, spilling: spilling, fontPx: 13 * box.width / view.width,
          steps: list ? list.children.length : 0, rows: svg.querySelectorAll('g.step').length, headings: headings,
          lanes: Array.from(svg.querySelectorAll('text.lane-name')).map(function (t) { return t.textContent; }),
          failed: svg.querySelectorAll('g.step.attempt-failed').length,
          traps: svg.querySelectorAll('g.step.trap').length, hearts: svg.querySelectorAll('g.step .heart-added').length};
});"""


def trap_install(server):
    """An install whose first coffee crashed before finish() and came back at the next launch, then a second tip."""
    install_id = server.create_install(label='<script>"x" & y', locale="pt-BR", storefront="BRA")
    server.store(crashBeforeFinish=True)
    buy(server, install_id)
    server.store(crashBeforeFinish=False)
    server.api("POST", f"/api/installs/{install_id}/launch")
    buy(server, install_id)
    return install_id


def diagrams(driver):
    return driver.execute_script(DIAGRAMS_JS)


def test_the_transaction_lives_read_on_a_phone(browser, server):
    install_id = trap_install(server)
    emulate_phone(browser)
    browser.get(f"{server.base}/installs/{install_id}")
    wait(browser, lambda: len(diagrams(browser)) == 2, message="the install page draws its two transactions")
    width = browser.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert width == [PHONE[0], PHONE[0]], f"the page is {width[0]} px wide at {PHONE[0]} px"
    for found in diagrams(browser):
        assert found["role"] == "img" and found["name"].startswith("The life of transaction"), found
        assert found["left"] >= 0 and found["right"] <= found["figureRight"] <= PHONE[0], found
        assert found["outside"] == [], f"labels drawn outside the viewBox: {found['outside']}"
        assert found["spilling"] == [], f"labels wider than their note: {found['spilling']}"
        assert found["fontPx"] >= 11.5, f"labels are {found['fontPx']:.1f} px at 390 px"
        assert found["steps"] == found["rows"], "every row has its sentence in the text alternative"
    older = diagrams(browser)[1]
    assert older["traps"] == 2 and older["hearts"] == 1, older
    found, report = serious_violations(browser)
    assert not found, report


def test_a_transaction_page_draws_its_life_and_passes_axe(browser, server):
    install_id = trap_install(server)
    first = server.api("GET", f"/api/installs/{install_id}/ledger")[0]["transactionID"]
    for size in ((1280, 900), PHONE):
        emulate_phone(browser, *size)
        browser.get(f"{server.base}/transactions/{first}")
        drawn = diagrams(browser)
        assert len(drawn) == 1 and drawn[0]["traps"] == 2, drawn
        assert browser.execute_script("return document.documentElement.scrollWidth") <= size[0]
        found, report = serious_violations(browser)
        assert not found, report


def test_printing_keeps_each_diagram_whole(browser, server):
    install_id = trap_install(server)
    browser.get(f"{server.base}/installs/{install_id}")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        rules = browser.execute_script(
            "var f = document.querySelector('figure.life'); var s = getComputedStyle(f);"
            "var svg = f.querySelector('svg').getBoundingClientRect();"
            "return [s.breakInside, svg.width, f.getBoundingClientRect().width];")
    finally:
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    assert rules[0] == "avoid", rules
    assert 0 < rules[1] <= rules[2], rules


def test_a_tap_draws_its_transaction_without_a_reload(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)
    assert diagrams(browser) == []
    tile(browser, "coffee").click()
    wait(browser, lambda: len(diagrams(browser)) == 1, message="the live channel brings the new transaction's life")
    drawn = diagrams(browser)[0]
    assert drawn["hearts"] == 1 and drawn["traps"] == 0, drawn


def test_your_servers_lane_reads_on_a_phone_and_on_a_wide_screen(browser, server):
    """A notification whose six attempts failed (a port bound and never listened on refuses every connection) is drawn
    in a fourth lane, Your server, inside the drawing at 390 and 1280 px, with every heading inside its box."""
    refused = socket.socket()
    refused.bind(("127.0.0.1", 0))
    try:
        server.api("PUT", "/api/notifications/settings",
                   {"url": f"http://127.0.0.1:{refused.getsockname()[1]}/n", "timeScale": 3600000})
        install_id = server.create_install(locale="pt-BR", storefront="BRA")
        transaction = str(buy(server, install_id)["transactionID"])
        wait(browser, lambda: any(n.get("transactionID") == transaction and n["state"] == "failed"
                                  for n in server.api("GET", "/api/notifications")),
             message="the ONE_TIME_CHARGE runs out of retries")
    finally:
        server.api("PUT", "/api/notifications/settings", {"url": None})
        refused.close()
    for size in ((1280, 900), PHONE):
        emulate_phone(browser, *size)
        for path in (f"/installs/{install_id}", f"/transactions/{transaction}"):
            browser.get(f"{server.base}{path}")
            drawn = diagrams(browser)[0]
            assert drawn["lanes"] == ["App", "App Store", "Listener", "Your server"], drawn
            assert drawn["failed"] == 6 + 1, "six attempts and the note that no retry is left"
            assert drawn["outside"] == [] and drawn["spilling"] == [] and drawn["headings"] == [], drawn
            assert drawn["fontPx"] >= 11.5 and drawn["steps"] == drawn["rows"], drawn
            assert drawn["right"] <= drawn["figureRight"] <= size[0], drawn
            assert browser.execute_script("return document.documentElement.scrollWidth") <= size[0]
            found, report = serious_violations(browser)
            assert not found, report
