"""The App Store Server Notifications operations of Public/api/openapi.json, for Tests/Schemas/check_openapi.py: the
settings (/api/notifications/settings), the list (/api/notifications) and the App Store Server API's notification
endpoints (/inApps/v1/notifications/…), each with every status the document gives it."""
import time


def exercise_notifications(api, good, bad, refunded):
    """`api` is check_openapi.py's client; `good` and `bad` its bearer token fields; `refunded` a refunded transaction."""
    api.call("POST", f"/api/transactions/{refunded}/reverse-refund", expect=200)
    api.call("POST", f"/api/transactions/{refunded}/reverse-refund", expect=409)
    api.call("POST", "/api/transactions/999999/reverse-refund", expect=404)
    api.call("POST", "/api/transactions/%ZZ/reverse-refund", expect=400)  # refused by the HTTP layer
    api.call("POST", f"/api/transactions/{refunded}/refund", {"reason": "developerIssue"}, expect=200)
    # No URL yet: Request a Test Notification answers Apple's 4040007.
    api.call("POST", "/inApps/v1/notifications/test", headers=good, expect=404)
    api.call("GET", "/api/notifications/settings", expect=200)
    api.call("PUT", "/api/notifications/settings", {"url": "ftp://example.com/"}, expect=400)
    api.call("PUT", "/api/notifications/settings", {"timeScale": 0}, expect=400)
    api.call("PUT", "/api/notifications/settings", {"colour": "red"}, expect=400)
    api.call("PUT", "/api/notifications/settings", "{}", content_type="text/plain", expect=415)
    # A server that is not there (port 9, discard: refused): attempts fail and are recorded, nothing else waits.
    api.call("PUT", "/api/notifications/settings", {"url": "http://127.0.0.1:9/notifications", "timeScale": 3600000}, expect=200)
    status, answer = api.call("POST", "/inApps/v1/notifications/test", headers=good, expect=200)
    token = answer["testNotificationToken"]
    api.call("POST", "/inApps/v1/notifications/test", headers=bad, expect=401)
    api.call("GET", f"/inApps/v1/notifications/test/{token}", headers=good, expect=200)
    api.call("GET", f"/inApps/v1/notifications/test/{token}", headers=bad, expect=401)
    api.call("GET", "/inApps/v1/notifications/test/a.b", headers=good, expect=400)
    api.call("GET", "/inApps/v1/notifications/test/unknown", headers=good, expect=404)
    now = int(time.time() * 1000)
    window = {"startDate": now - 3_600_000, "endDate": now + 60_000}
    api.call("POST", "/inApps/v1/notifications/history", window, headers=good, expect=200)
    api.call("POST", "/inApps/v1/notifications/history", dict(window, onlyFailures=True), headers=good, expect=200)
    api.call("POST", "/inApps/v1/notifications/history", window, headers=bad, expect=401)
    for wrong in [{}, {"startDate": now, "endDate": now}, dict(window, notificationType="TIP"),
                  dict(window, notificationType="REFUND", transactionId="1")]:
        api.call("POST", "/inApps/v1/notifications/history", wrong, headers=good, expect=400)
    api.call("POST", "/inApps/v1/notifications/history?paginationToken=%25", window, headers=good, expect=400)
    api.call("POST", "/inApps/v1/notifications/history", "{}", content_type="text/plain", headers=good, expect=415)
    api.call("GET", "/api/notifications", expect=200)
    api.call("GET", "/api/notifications?type=TEST", expect=200)
    api.call("GET", "/api/notifications?type=NOPE", expect=400)
    api.call("PUT", "/api/notifications/settings", {"url": None}, expect=200)
