"""Real-browser tests of what a page shows whole: every option of a form's select at 1280 px, every table inside its
box at 1280 px, each transaction's link on a 390 px phone's first screen width with a shadow where its table goes on,
a long Apple Account in a few wide lines; and the simulated screen's heading never smaller than the text under it at
any text size (WCAG 2.2, 1.3.1 Info and Relationships).

Same server, browser and helpers as test_dashboard.py (run all with Tests/Browser/run.sh).
"""

import pytest
from selenium.webdriver.common.by import By

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    browser, browser_without_javascript, chrome, normal_store, open_install, running_server, serious_violations, server)
from test_dialogs import BODY_POINTS, set_width
from test_phone_screen import COFFEE, LUNCH, PHONE, buy, emulate_phone
from test_small_things import LONG_ACCOUNT

WIDE = (1280, 900)
LOCALES = (("en", "USA"), ("pt-BR", "BRA"))

# Each visible select's options, measured in the select's own font, against the room its box leaves beside the arrow.
CUT_OPTIONS_JS = """
document.querySelectorAll('details').forEach(function (d) { d.open = true; });
var context = document.createElement('canvas').getContext('2d'), cut = [];
document.querySelectorAll('select').forEach(function (select) {
  if (!select.getClientRects().length) { return; }
  var style = getComputedStyle(select);
  context.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
  var room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
  Array.from(select.options).forEach(function (option) {
    var width = context.measureText(option.text).width;
    if (width > room) { cut.push(select.name + ': ' + option.text + ' (' + Math.round(width) + ' px in ' + Math.round(room) + ')'); }
  });
});
return cut;"""

TABLES_JS = """
return Array.from(document.querySelectorAll('table')).filter(function (t) { return t.getClientRects().length; })
  .map(function (t) { var box = t.closest('.table-scroll') || t.parentElement;
    return {caption: (t.caption || t.querySelector('th') || t).textContent.trim().slice(0, 40), table: t.scrollWidth,
            box: box.clientWidth}; })
  .filter(function (t) { return t.table > t.box + 1; });"""


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_selects_show_whole_values_and_tables_fit_at_1280(browser, browser_without_javascript, server, javascript):
    driver = browser if javascript else browser_without_javascript
    install_id = server.create_install(accountID=LONG_ACCOUNT)
    buy(server, install_id, LUNCH)
    set_width(driver, WIDE)
    problems = []
    for path in ("/installs", "/store", "/catalog", "/transactions", f"/installs/{install_id}"):
        driver.get(server.base + path)
        cut = driver.execute_script(CUT_OPTIONS_JS)
        problems += [f"{path}: cut option {option}" for option in cut]
        problems += [f"{path}: the table {t['caption']!r} is {t['table']} px in a {t['box']} px box"
                     for t in driver.execute_script(TABLES_JS)]
        if javascript and path in ("/installs", "/store", "/catalog"):
            found, report = serious_violations(driver)
            if found:
                problems.append(f"{path} (axe-core): {report}")
    assert not problems, "\n".join(problems)


PHONE_ROWS_JS = """
var region = document.querySelector('.table-scroll'), rows = Array.from(region.querySelectorAll('tbody tr'));
var style = getComputedStyle(region);
return {rows: rows.map(function (row) {
          var link = row.querySelector('a[href^="/transactions/"]'), r = link.getBoundingClientRect();
          return {left: r.left, right: r.right, height: row.getBoundingClientRect().height};
        }), scrolls: region.scrollWidth > region.clientWidth, shadows: (style.backgroundImage.match(/gradient/g) || []).length,
        attachment: style.backgroundAttachment, innerWidth: innerWidth};"""


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_each_transaction_is_linked_on_a_390_px_phones_screen_and_a_long_account_stays_a_few_lines(browser, browser_without_javascript, server, javascript):
    driver = browser if javascript else browser_without_javascript
    install_id = server.create_install(accountID=LONG_ACCOUNT)
    buy(server, install_id, COFFEE)
    emulate_phone(driver)
    driver.get(f"{server.base}/transactions?accountID={LONG_ACCOUNT}")
    found = driver.execute_script(PHONE_ROWS_JS)
    assert found["rows"], "no transaction row"
    for row in found["rows"]:
        assert 0 <= row["left"] and row["right"] <= found["innerWidth"], f"a transaction's link is off the screen: {row}"
        # Four lines of the account at most (each about 24 px), not a tall narrow column.
        assert row["height"] <= 120, f"a row with a 100-character Apple Account is {row['height']} px tall"
    assert found["scrolls"], "the table fits a phone: nothing to cue"
    # The cue: shadows fixed to the region's edges under covers that scroll with the table.
    assert found["shadows"] == 4 and "local" in found["attachment"] and "scroll" in found["attachment"], found
    if javascript:
        violations, report = serious_violations(driver)
        assert not violations, report


HEADING_AND_TEXTS_JS = """
var screen = document.querySelector('section.phone'), heading = document.getElementById('credits-title');
var larger = [];
screen.querySelectorAll('*').forEach(function (e) {
  // The hearts are an image (role=img, "3 of 5 hearts"), not text; the emoji are pictures too.
  if (e.closest('dialog, noscript, .sr-only, .emoji, [aria-hidden="true"], [role="img"]') || !e.getClientRects().length) { return; }
  var own = Array.from(e.childNodes).some(function (n) { return n.nodeType === 3 && n.textContent.trim(); });
  if (!own) { return; }
  var size = parseFloat(getComputedStyle(e).fontSize);
  if (size > parseFloat(getComputedStyle(heading).fontSize) + 0.1) { larger.push(e.tagName + '.' + e.className + ' ' + size + ' px'); }
});
return {heading: parseFloat(getComputedStyle(heading).fontSize), larger: larger};"""


@pytest.mark.parametrize("locale, storefront", LOCALES)
def test_the_screens_heading_is_never_smaller_than_the_text_under_it(browser, server, locale, storefront):
    install_id = server.create_install(locale=locale, storefront=storefront, legacyHasTipped=True)
    problems = []
    for where in (PHONE, WIDE):
        set_width(browser, where)
        for size in BODY_POINTS:
            open_install(browser, server, install_id, f"?textSize={size}")
            found = browser.execute_script(HEADING_AND_TEXTS_JS)
            problems += [f"{locale} {where[0]} px {size}: {text} beside a {found['heading']} px heading" for text in found["larger"]]
    assert not problems, "\n".join(problems)


ONE_LINE_JS = """
return Array.from(document.querySelectorAll(arguments[0])).filter(function (e) {
  var range = document.createRange(); range.selectNodeContents(e);
  var tops = {}; Array.from(range.getClientRects()).forEach(function (r) { if (r.width > 0) { tops[Math.round(r.top)] = 1; } });
  return Object.keys(tops).length > 1;
}).map(function (e) { return e.textContent; });"""


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_on_a_390_px_phone_the_overview_totals_share_one_row_and_iso_times_never_break(browser, browser_without_javascript, server, javascript):
    driver = browser if javascript else browser_without_javascript
    server.api("PUT", "/api/notifications/settings", {"url": "http://127.0.0.1:9/notifications", "timeScale": 3600000})
    try:
        install_id = server.create_install()
        buy(server, install_id, COFFEE)
        emulate_phone(driver)
        driver.get(server.base + "/")
        cards = driver.execute_script(
            "return Array.from(document.querySelectorAll('.cards .card')).map(function (c) {"
            " var r = c.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, right: r.right}; });")
        assert len(cards) == 3 and len({round(card["top"]) for card in cards}) == 1, f"the totals are stacked: {cards}"
        assert max(card["bottom"] - card["top"] for card in cards) <= 100, cards
        assert max(card["right"] for card in cards) <= PHONE[0], cards
        driver.get(server.base + "/notifications")
        assert driver.find_elements(By.CSS_SELECTOR, ".notification-list time"), "no notification listed"
        broken = driver.execute_script(ONE_LINE_JS, ".notification-list time")
        assert broken == [], f"ISO times broken across lines: {broken}"
        if javascript:
            for path in ("/", "/notifications"):
                driver.get(server.base + path)
                found, report = serious_violations(driver)
                assert not found, f"{path}: {report}"
    finally:
        server.api("PUT", "/api/notifications/settings", {"url": None})
