#!/usr/bin/env python3
"""App Store Server Notifications V2 from the dashboard, judged by Apple's own App Store Server Library.

Runs a small receiver (Python's http.server) on an ephemeral loopback port as the developer's server, starts `tipjar
serve --notifications-url` on it (TIPJAR_BIN, default .build/release/tipjar) with a large `--notification-time-scale`,
and drives the store through the JSON API: a purchase (ONE_TIME_CHARGE), a refund request from the app
(CONSUMPTION_REQUEST), a declined and an approved request (REFUND_DECLINED, REFUND), the refund reversed
(REFUND_REVERSED), a request decided by the server's
consumption information, a test notification, and a server that answers 500 to the first attempts (retried on Apple's
schedule, compressed). Every body the receiver gets is decoded with `SignedDataVerifier.verify_and_decode_notification`
in LOCAL_TESTING; every key of the payload and of its `data` must be one the library's models name (0 unknown fields).
Then Request a Test Notification, Get Test Notification Status and Get Notification History are called through
`AppStoreServerAPIClient` (as Tests/ServerAPI/check_server_api.py builds it), with Apple's error codes for bad input:
`transactionId` selects the customer's notifications, `onlyFailures` the ones that have not reached the server (a
receiver that never answers 2xx), and the history of one environment holds none of another's.

Waits are bounded polls of a condition, never a fixed sleep. Prints `N passed, N failed`; exit 1 on any failure.
"""
import base64
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import attr
import requests

from appstoreserverlibrary.api_client import APIError, APIException
from appstoreserverlibrary.models.Data import Data
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.ResponseBodyV2DecodedPayload import ResponseBodyV2DecodedPayload
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_server_api as base  # noqa: E402  (its Dashboard, client_for, check and counters)
from check_server_api import BUNDLE_ID, COFFEE, SNACK, check, client_for, expect_api_error  # noqa: E402

verifier = SignedDataVerifier([], False, Environment.LOCAL_TESTING, BUNDLE_ID)
PAYLOAD_KEYS = {f.name for f in attr.fields(ResponseBodyV2DecodedPayload) if not f.name.startswith("raw")}
DATA_KEYS = {f.name for f in attr.fields(Data) if not f.name.startswith("raw")}


def payload_json(signed):
    part = signed.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


class Receiver:
    """The developer's server: records every body; answers 500 while `failures` is above zero, else 200."""

    def __init__(self):
        self.bodies = []
        self.failures = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    receiver.bodies.append(body)
                    failing = receiver.failures > 0
                    receiver.failures -= 1 if failing else 0
                self.send_response(500 if failing else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/notifications"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def decoded(self):
        """Every notification received, decoded by the library: (decoded, raw JSON payload)."""
        with self.lock:
            bodies = list(self.bodies)
        out = []
        for body in bodies:
            signed = json.loads(body)["signedPayload"]
            out.append((verifier.verify_and_decode_notification(signed), payload_json(signed)))
        return out


def wait_for(condition, what, timeout=20.0):
    """Polls `condition` until it holds (bounded); records a failure naming `what` when it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    check(False, f"timed out waiting for {what}")
    return None


def of_type(receiver, kind, transaction_id=None):
    found = []
    for decoded, raw in receiver.decoded():
        if decoded.rawNotificationType != kind:
            continue
        if transaction_id is not None:
            tx = verifier.verify_and_decode_signed_transaction(decoded.data.signedTransactionInfo)
            if tx.transactionId != str(transaction_id):
                continue
        found.append((decoded, raw))
    return found


def transaction_of(item):
    """The transactionId a history item's notification is about, or None (TEST)."""
    decoded = verifier.verify_and_decode_notification(item.signedPayload)
    signed = decoded.data.signedTransactionInfo if decoded.data else None
    return verifier.verify_and_decode_signed_transaction(signed).transactionId if signed else None


def run(d, receiver):
    d.api("PUT", "/api/store", {"environment": "LocalTesting"})
    install = d.api("POST", "/api/installs", {"accountID": "noa", "launch": True}, expect=201)
    iid = install["id"]

    # A purchase: ONE_TIME_CHARGE, with the transaction inside.
    tid = d.api("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE})["transactionID"]
    charge = wait_for(lambda: of_type(receiver, "ONE_TIME_CHARGE", tid), "ONE_TIME_CHARGE")
    if charge:
        decoded, raw = charge[0]
        check(decoded.rawSubtype is None and "subtype" not in raw, "ONE_TIME_CHARGE has no subtype")
        check(raw["version"] == "2.0" and isinstance(raw["signedDate"], int), "version 2.0 and a signedDate in milliseconds")
        check(decoded.data.bundleId == BUNDLE_ID and decoded.data.rawEnvironment == "LocalTesting", "data: bundleId and environment")
        tx = verifier.verify_and_decode_signed_transaction(decoded.data.signedTransactionInfo)
        check(tx.productId == COFFEE and tx.rawType == "Consumable", "ONE_TIME_CHARGE's transaction is the coffee tip")

    # A refund request from the app: CONSUMPTION_REQUEST; declined on /store: REFUND_DECLINED.
    d.api("POST", f"/api/installs/{iid}/transactions/{tid}/refund-request", {"userAction": "submit", "reason": "developerIssue"})
    request = wait_for(lambda: of_type(receiver, "CONSUMPTION_REQUEST", tid), "CONSUMPTION_REQUEST")
    if request:
        check(request[0][0].data.rawConsumptionRequestReason == "FULFILLMENT_ISSUE", "consumptionRequestReason for 'the app had a problem'")
    d.api("POST", f"/api/store/refund-requests/{tid}/decline")
    wait_for(lambda: of_type(receiver, "REFUND_DECLINED", tid), "REFUND_DECLINED")

    # Approved: REFUND, with the revocation in the transaction.
    tid2 = d.api("POST", f"/api/installs/{iid}/purchases", {"productID": SNACK})["transactionID"]
    d.api("POST", f"/api/installs/{iid}/transactions/{tid2}/refund-request", {"userAction": "submit"})
    d.api("POST", f"/api/store/refund-requests/{tid2}/approve")
    refund = wait_for(lambda: of_type(receiver, "REFUND", tid2), "REFUND")
    if refund:
        tx = verifier.verify_and_decode_signed_transaction(refund[0][0].data.signedTransactionInfo)
        check(tx.revocationDate is not None and tx.rawRevocationType == "REFUND_FULL", "REFUND's transaction carries its revocation")
    check(of_type(receiver, "CONSUMPTION_REQUEST", tid2)[0][0].data.rawConsumptionRequestReason == "OTHER", "no reason: OTHER")

    # The App Store reverses the refund: REFUND_REVERSED, the transaction no longer revoked.
    d.api("POST", f"/api/transactions/{tid2}/reverse-refund")
    reversed_ = wait_for(lambda: of_type(receiver, "REFUND_REVERSED", tid2), "REFUND_REVERSED")
    if reversed_:
        tx = verifier.verify_and_decode_signed_transaction(reversed_[0][0].data.signedTransactionInfo)
        check(tx.revocationDate is None and tx.rawRevocationType is None, "REFUND_REVERSED's transaction is no longer revoked")

    # Decided by the server's consumption information: refundPreference DECLINE makes a decline.
    client = client_for(d)
    d.api("PUT", "/api/store", {"refundRequestDecision": "consumptionInformation"})
    tid3 = d.api("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE})["transactionID"]
    d.api("POST", f"/api/installs/{iid}/transactions/{tid3}/refund-request", {"userAction": "submit"})
    wait_for(lambda: of_type(receiver, "CONSUMPTION_REQUEST", tid3), "CONSUMPTION_REQUEST (server decides)")
    from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
    from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
    from appstoreserverlibrary.models.RefundPreference import RefundPreference
    client.send_consumption_information(str(tid3), ConsumptionRequest(
        customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
        refundPreference=RefundPreference.DECLINE))
    wait_for(lambda: of_type(receiver, "REFUND_DECLINED", tid3), "REFUND_DECLINED after refundPreference DECLINE")
    check(not of_type(receiver, "REFUND", tid3), "no REFUND for a request the server asked to decline")

    # A server that answers 500 twice: retried on Apple's schedule (1 h, then 12 h; time scale 360000), same UUID.
    with receiver.lock:
        receiver.failures = 2
    tid4 = d.api("POST", f"/api/installs/{iid}/purchases", {"productID": SNACK})["transactionID"]
    sent = wait_for(lambda: len(of_type(receiver, "ONE_TIME_CHARGE", tid4)) >= 3 and of_type(receiver, "ONE_TIME_CHARGE", tid4),
                    "three attempts of a notification answered 500 twice")
    if sent:
        check(len({decoded.notificationUUID for decoded, _ in sent}) == 1, "every retry carries the same notificationUUID")

    # A server that never answers 2xx: the notification is undelivered (retrying, then failed for good), and another
    # account's purchase, on an install of its own, is not that customer's.
    with receiver.lock:
        receiver.failures = 10**6
    other = d.api("POST", "/api/installs", {"accountID": "lev", "launch": True}, expect=201)["id"]
    tid5 = d.api("POST", f"/api/installs/{other}/purchases", {"productID": COFFEE})["transactionID"]
    wait_for(lambda: of_type(receiver, "ONE_TIME_CHARGE", tid5), "the first attempt of a notification that never reaches the server")
    start = int(time.time() * 1000) - 3_600_000

    def undelivered():
        answer = client.get_notification_history(None, NotificationHistoryRequest(startDate=start, endDate=int(time.time() * 1000) + 60_000, onlyFailures=True))
        return [transaction_of(item) for item in answer.notificationHistory]
    # onlyFailures: "notifications that failed to reach your server, including those … currently retrying"
    # (https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest): tid5's, not tid4's,
    # which reached the server on its third attempt.
    failed = wait_for(lambda: (lambda found: found if str(tid5) in found else None)(undelivered()), "onlyFailures listing the undelivered one")
    check(failed == [str(tid5)], f"onlyFailures: only the notification that has not reached the server ({failed}), not one delivered on a retry")
    with receiver.lock:
        receiver.failures = 0

    # Request a Test Notification and its status.
    token = client.request_test_notification().testNotificationToken
    wait_for(lambda: of_type(receiver, "TEST"), "TEST")
    status = wait_for(lambda: (lambda s: s if s.sendAttempts else None)(client.get_test_notification_status(token)), "the test's attempt")
    if status:
        check([a.rawSendAttemptResult for a in status.sendAttempts] == ["SUCCESS"], "the test notification's attempt: SUCCESS")
        test = verifier.verify_and_decode_notification(status.signedPayload)
        check(test.rawNotificationType == "TEST" and test.data.signedTransactionInfo is None, "TEST has no transaction")
    expect_api_error(lambda: client.get_test_notification_status("no-such-token"), 404, APIError.TEST_NOTIFICATION_NOT_FOUND, "unknown test token")

    # Get Notification History: all, by transaction, by type, only failures; and its errors.
    now = int(time.time() * 1000)
    window = dict(startDate=now - 3_600_000, endDate=now + 60_000)
    everything, page = [], None
    while True:
        answer = client.get_notification_history(page, NotificationHistoryRequest(**window))
        everything += answer.notificationHistory
        page = answer.paginationToken
        if not answer.hasMore:
            break
    kinds = sorted({verifier.verify_and_decode_notification(item.signedPayload).rawNotificationType for item in everything})
    check(kinds == ["CONSUMPTION_REQUEST", "ONE_TIME_CHARGE", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED", "TEST"], f"history's types: {kinds}")
    # transactionId: "any transaction that belongs to the customer" — every notification about the customer's
    # transactions (noa's tid to tid4), none of another customer's (lev's tid5) and no TEST.
    customer, page = [], None
    while True:
        answer = client.get_notification_history(page, NotificationHistoryRequest(**window, transactionId=str(tid4)))
        customer += answer.notificationHistory
        page = answer.paginationToken
        if not answer.hasMore:
            break
    expected = [item for item in everything if transaction_of(item) in {str(t) for t in (tid, tid2, tid3, tid4)}]
    check(len(customer) == len(expected) >= 8 and {transaction_of(item) for item in customer} == {str(t) for t in (tid, tid2, tid3, tid4)},
          f"transactionId: the customer's {len(expected)} notifications, got {len(customer)}: {sorted({transaction_of(item) for item in customer})}")
    app_transaction_id = d.api("GET", f"/api/transactions/{tid4}")["jwsPayload"]["appTransactionId"]
    by_app = client.get_notification_history(None, NotificationHistoryRequest(**window, transactionId=app_transaction_id))
    check(len(by_app.notificationHistory) == min(20, len(expected)), "transactionId may be the customer's appTransactionId")
    retried = [item for item in customer if transaction_of(item) == str(tid4) and item.sendAttempts[0].rawSendAttemptResult != "SUCCESS"]
    results = [a.rawSendAttemptResult for item in retried for a in item.sendAttempts]
    check(results == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"], f"the retried one's attempts: {results}")
    dates = [a.attemptDate for item in retried for a in item.sendAttempts]
    check(len(dates) == 3 and dates[1] - dates[0] >= 10 and dates[2] - dates[1] >= 120, f"retries 1 h and 12 h apart, scaled: {dates}")
    # Each environment is its own data set: in Xcode, none of these LocalTesting notifications is listed.
    d.api("PUT", "/api/store", {"environment": "Xcode"})
    xcode = client.get_notification_history(None, NotificationHistoryRequest(**window))
    check([transaction_of(item) for item in xcode.notificationHistory if transaction_of(item)] == [],
          "in Xcode the history lists no notification about a LocalTesting transaction")
    d.api("PUT", "/api/store", {"environment": "LocalTesting"})
    refunds = client.get_notification_history(None, NotificationHistoryRequest(**window, notificationType=NotificationTypeV2.REFUND))
    check(len(refunds.notificationHistory) == 1, "notificationType REFUND: one")
    expect_api_error(lambda: client.get_notification_history(None, NotificationHistoryRequest(
        **window, transactionId=str(tid), notificationType=NotificationTypeV2.REFUND)), 400, APIError.MULTIPLE_FILTERS_SUPPLIED, "two filters")
    expect_api_error(lambda: client.get_notification_history(None, NotificationHistoryRequest(startDate=now, endDate=now - 1)),
                     400, APIError.START_DATE_AFTER_END_DATE, "start after end")
    expect_api_error(lambda: client.get_notification_history("not-a-token", NotificationHistoryRequest(**window)),
                     400, APIError.INVALID_PAGINATION_TOKEN, "bad pagination token")

    # Every payload received: only keys Apple's models name.
    for decoded, raw in receiver.decoded():
        check(set(raw) <= PAYLOAD_KEYS, f"payload keys {sorted(set(raw) - PAYLOAD_KEYS)} unknown to ResponseBodyV2DecodedPayload")
        check(set(raw.get("data", {})) <= DATA_KEYS, f"data keys {sorted(set(raw.get('data', {})) - DATA_KEYS)} unknown to Data")

    # A notifications URL that is not http(s) is refused at the boundary.
    bad = requests.put(d.base + "/api/notifications/settings", json={"url": "ftp://example.com/x"}, timeout=30)
    check(bad.status_code == 400, f"an ftp:// notifications URL: 400, got {bad.status_code}")


def main():
    receiver = Receiver()
    with tempfile.TemporaryDirectory(prefix="tipjar-notifications-") as folder:
        d = base.Dashboard(folder, ["--notifications-url", receiver.url, "--notification-time-scale", "360000"])
        try:
            run(d, receiver)
        except (APIException, VerificationException) as error:
            traceback.print_exc()
            check(False, f"the check stopped at {type(error).__name__}: {error}")
        finally:
            d.stop()
            receiver.server.shutdown()
    print(f"check_notifications.py: {base.passed} passed, {len(base.failures)} failed")
    return 1 if base.failures else 0


if __name__ == "__main__":
    sys.exit(main())
