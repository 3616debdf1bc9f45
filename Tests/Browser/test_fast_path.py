"""Real-browser tests of the answers the server's I/O thread gives by itself (each route's own middlewares walked on
that thread, `MiddlewareChain.immediateResponse(to:)`): a page the
page cache holds, sent again to the same browser with its own session's CSRF token spliced in, and the style sheet
with its `ETag` and `304 Not Modified` (RFC 9110 §13.1.2), behave exactly as the pages and files the routes send.

Same server, browser and helpers as test_dashboard.py (run with Tests/Browser/run.sh -k fast_path).
"""

import urllib.error
import urllib.request

from test_dashboard import (  # noqa: F401 (fixtures are found by name)
    browser, chrome, hearts, normal_store, notice_text, open_install, server, tile, wait)

THANK_YOU = "Thank you for the tip! One more heart."


def test_a_stored_install_page_sent_again_still_buys_a_tip_with_its_sessions_token(browser, server):
    install_id = server.create_install()
    open_install(browser, server, install_id)  # renders and stores the page; the browser gets its session
    first_token = browser.execute_script("return document.querySelector('meta[name=csrf-token]').content;")
    for _ in range(3):  # each reload is the stored page, answered without the routes
        browser.refresh()
        open_install(browser, server, install_id, state="ready")
    token = browser.execute_script("return document.querySelector('meta[name=csrf-token]').content;")
    assert token == first_token and len(token) == 64
    tile(browser, "coffee").click()
    wait(browser, lambda: (notice_text(browser) or "") == THANK_YOU, message="the tap on a stored page was not a purchase")
    assert hearts(browser) == 1
    browser.refresh()  # the purchase made the stored page out of date: the routes render it again
    open_install(browser, server, install_id, state="ready")
    assert hearts(browser) == 1


def test_the_style_sheet_is_revalidated_with_its_etag_and_keeps_every_security_header(browser, server):
    with urllib.request.urlopen(server.base + "/app.css", timeout=10) as response:
        etag = response.headers["ETag"]
        first = dict(response.headers)
        body = response.read()
    request = urllib.request.Request(server.base + "/app.css", headers={"If-None-Match": etag})
    try:
        urllib.request.urlopen(request, timeout=10)
        raise AssertionError("a matching If-None-Match was answered with the file")
    except urllib.error.HTTPError as answer:
        assert answer.code == 304
        assert answer.headers["ETag"] == etag
        assert answer.headers["Content-Security-Policy"] == first["Content-Security-Policy"]
        assert answer.read() == b""
    for name in ["Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Cache-Control"]:
        assert first.get(name), f"/app.css lacks {name}"
    assert len(body) == int(first["Content-Length"])
    install_id = server.create_install()
    open_install(browser, server, install_id)
    styled = browser.execute_script("return getComputedStyle(document.body).fontFamily;")
    browser.refresh()
    open_install(browser, server, install_id, state="ready")
    assert browser.execute_script("return getComputedStyle(document.body).fontFamily;") == styled
    assert browser.execute_script("return document.styleSheets.length;") >= 1
