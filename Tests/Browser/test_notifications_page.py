"""Real-browser tests of /notifications (App Store Server Notifications V2) and the transaction page's notifications:
they fit a 390 px phone, have 0 serious or critical axe-core violations, and the settings form and Resend work as
plain form posts, without JavaScript.

Same server, browser and helpers as test_dashboard.py and test_phone_screen.py (run with Tests/Browser/run.sh).
"""

from selenium.webdriver.common.by import By

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
        assert "Saved the notification settings." in browser.find_element(By.CSS_SELECTOR, "main").text
        assert server.api("GET", "/api/notifications/settings")["url"] == "http://127.0.0.1:9/hook"
    finally:
        browser.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
        server.api("PUT", "/api/notifications/settings", {"url": None})
