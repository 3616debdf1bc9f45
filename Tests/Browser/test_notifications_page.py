"""Real-browser tests of /notifications (App Store Server Notifications V2) and the transaction page's notifications:
they fit a 390 px phone, have 0 serious or critical axe-core violations, and the settings form and Resend work as
plain form posts, without JavaScript.

Same server, browser and helpers as test_dashboard.py and test_phone_screen.py (run with Tests/Browser/run.sh).
"""

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from test_api_reference import OVERFLOW_JS
from test_dashboard import browser, chrome, running_server, serious_violations, server  # noqa: F401
from test_phone_screen import COFFEE, PHONE, check_page_fits, emulate_phone


def test_the_notifications_pages_fit_a_390_px_phone_without_serious_axe_violations(browser, server):
    # Port 9 (discard) refuses: each attempt fails with NO_RESPONSE and is listed with its result.
    server.api("PUT", "/api/notifications/settings", {"url": "http://127.0.0.1:9/notifications", "timeScale": 3600000})
    install_id = server.create_install()
    bought = server.api("POST", f"/api/installs/{install_id}/purchases", {"productID": COFFEE})
    emulate_phone(browser)
    problems = []
    for path in ("/notifications", f"/transactions/{bought['transactionID']}"):
        browser.get(server.base + path)
        problems += check_page_fits(browser, path)
        beyond = browser.execute_script(OVERFLOW_JS)
        if beyond:
            problems.append(f"{path}: elements beyond the {PHONE[0]} px screen: {beyond}")
        found, report = serious_violations(browser)
        if found:
            problems.append(f"{path}: {report}")
    server.api("PUT", "/api/notifications/settings", {"url": None})
    assert not problems, "\n".join(problems)


def test_the_settings_form_saves_without_javascript(browser, server):
    browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        browser.get(server.base + "/notifications")
        field = browser.find_element(By.NAME, "url")
        field.clear()
        field.send_keys("http://127.0.0.1:9/hook")
        browser.find_element(By.CSS_SELECTOR, "form.settings button[type=submit]").click()
        # The post answers 303 and the browser loads the page it names: wait for that page, not the one clicked on.
        WebDriverWait(browser, 10).until(lambda b: "Saved the notification settings." in b.page_source)
        assert server.api("GET", "/api/notifications/settings")["url"] == "http://127.0.0.1:9/hook"
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        server.api("PUT", "/api/notifications/settings", {"url": None})


def test_request_a_test_notification_then_read_why_the_attempt_failed(browser, server):
    """A backend developer's first check: the page's Request a Test Notification button (a form, no JWT) posts a TEST
    ahead of any backlog, and a failed attempt says where it went and why, in words, at 390 px without serious axe
    violations."""
    import socket
    import time

    # A port bound and never listened on refuses the connection: the attempt fails with NO_RESPONSE.
    refusing = socket.socket()
    refusing.bind(("127.0.0.1", 0))
    url = "http://127.0.0.1:%d/apple" % refusing.getsockname()[1]
    try:
        server.api("PUT", "/api/notifications/settings", {"url": url, "timeScale": 1})
        emulate_phone(browser)
        browser.get(server.base + "/notifications")
        browser.find_element(By.XPATH, "//button[normalize-space()='Request a Test Notification']").click()
        WebDriverWait(browser, 10).until(lambda b: "Requested a TEST notification" in b.page_source)
        deadline = time.time() + 15
        while time.time() < deadline:
            browser.get(server.base + "/notifications?type=TEST")
            causes = [element.text for element in browser.find_elements(By.CSS_SELECTOR, ".attempts .cause")]
            if causes:
                break
            time.sleep(0.1)
        assert causes and "connection refused" in causes[0], causes
        first = browser.find_element(By.CSS_SELECTOR, ".notification-list > li")
        assert "NO_RESPONSE" in first.text and url in first.text, first.text
        problems = check_page_fits(browser, "/notifications?type=TEST")
        found, report = serious_violations(browser)
        assert not problems and not found, (problems, report)
    finally:
        refusing.close()
        server.api("PUT", "/api/notifications/settings", {"url": None})
