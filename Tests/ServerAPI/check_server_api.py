#!/usr/bin/env python3
"""The dashboard's App Store Server API, judged by Apple's own App Store Server Library.

Starts `tipjar serve` (TIPJAR_BIN, default .build/release/tipjar) on a temporary database and an ephemeral loopback
port, buys tips and refunds some through the JSON API (/api), then does what a developer's backend does: builds
`AppStoreServerAPIClient` (Environment.LOCAL_TESTING, a throwaway P-256 key) and calls Get Transaction Info, Get
Transaction History v2, Look Up Order ID, Get Refund History and Send Consumption Information (v1 and v2), decoding
every signed transaction with `SignedDataVerifier` and holding every value to what the JSON API shows. Also: a
transaction's `jwsRepresentation` decodes in the XCODE environment; malformed bearer tokens answer 401; an unknown
transaction ID answers Apple's not-found code; consumption bodies of the wrong types answer Apple's field codes, and
one with members Apple does not define is refused. Then what the library's defaults call: Get Transaction History v1
(without finished consumables), Finish Transaction, Set App Account Token, Get App Transaction Info (decoded by
`verify_and_decode_app_transaction`), an `appTransactionId` where Apple takes any ID; each environment its own data
set; and the same database served under another `--bundle-id` answering 4040010 for the first app's transactions.

The library hard-codes a placeholder base URL for LocalTesting; the client's `_execute_request` is replaced to send
to the dashboard instead, as the library's own tests replace it (tests/test_api_client.py, `get_client_with_body`).
`SignedDataVerifier` is built with no root certificates: in XCODE and LOCAL_TESTING it skips signature verification
(appstoreserverlibrary/signed_data_verifier.py, `_decode_signed_object`), which the dashboard's unsecured JWS needs.

Prints `N passed, N failed`; exit 1 on any failure. Install the library with Tests/ServerAPI/install.sh.
"""
import base64
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
import warnings

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appstoreserverlibrary.api_client import APIError, APIException, AppStoreServerAPIClient, GetTransactionHistoryVersion
from appstoreserverlibrary.models.AccountTenure import AccountTenure
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.ConsumptionStatus import ConsumptionStatus
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.DeliveryStatusV1 import DeliveryStatusV1
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.LifetimeDollarsPurchased import LifetimeDollarsPurchased
from appstoreserverlibrary.models.LifetimeDollarsRefunded import LifetimeDollarsRefunded
from appstoreserverlibrary.models.OrderLookupStatus import OrderLookupStatus
from appstoreserverlibrary.models.Platform import Platform
from appstoreserverlibrary.models.PlayTime import PlayTime
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.RefundPreferenceV1 import RefundPreferenceV1
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.models.UserStatus import UserStatus
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException, VerificationStatus

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("TIPJAR_BIN", os.path.join(ROOT, ".build", "release", "tipjar"))
BUNDLE_ID = "com.example.tipjar"  # `serve --bundle-id`'s default
COFFEE, SNACK, LUNCH = "com.example.tipjar.tip.coffee", "com.example.tipjar.tip.snack", "com.example.tipjar.tip.lunch"

passed = 0
failures = []


def check(condition, what):
    global passed
    if condition:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)


class Dashboard:
    """`tipjar serve --port 0` on a temporary database; the port comes from the start-up banner
    (as Tests/Benchmarks/server_support.py reads it)."""

    def __init__(self, folder, options=()):
        command = [BINARY, "serve", "--port", "0", "--database", os.path.join(folder, "tipjar.sqlite3"), *options]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        banner = self.process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
        if not match:
            self.process.kill()
            sys.exit(f"check_server_api.py: the server did not start: {banner!r}")
        self.base = f"http://127.0.0.1:{match.group(1)}"

    def api(self, method, path, body=None, expect=200):
        response = requests.request(method, self.base + path, json=body, timeout=30)
        if response.status_code != expect:
            sys.exit(f"check_server_api.py: {method} {path} answered {response.status_code}, not {expect}: {response.text[:300]}")
        return response.json() if response.content and "json" in response.headers.get("Content-Type", "") else response.text

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=15)


def client_for(dashboard, bundle_id=BUNDLE_ID):
    """A developer's client: a throwaway P-256 key, LOCAL_TESTING, its requests sent to the dashboard."""
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    client = AppStoreServerAPIClient(pem, "KEYID12345", str(uuid.uuid4()), bundle_id, Environment.LOCAL_TESTING)
    placeholder = client._base_url
    send = client._execute_request

    def execute(method, url, params, headers, json_body, data):
        assert url.startswith(placeholder), url
        return send(method, dashboard.base + url[len(placeholder):], params, headers, json_body, data)

    client._execute_request = execute
    return client


def raw_name(decoded, key):
    """The decoded payload's value of a JSON key: the library keeps an enum's JSON value as raw<Key>."""
    raw = "raw" + key[0].upper() + key[1:]
    return getattr(decoded, raw) if hasattr(decoded, raw) else getattr(decoded, key)


def holds_payload(decoded, payload, where):
    """Every key of the JSON API's jwsPayload has the same value in the library's decoded transaction."""
    for key, value in payload.items():
        check(raw_name(decoded, key) == value, f"{where}: {key} decodes as {raw_name(decoded, key)!r}, the JSON API says {value!r}")


def expect_api_error(call, status, code, where):
    try:
        call()
    except APIException as error:
        check(error.http_status_code == status, f"{where}: status {error.http_status_code}, expected {status}")
        check(error.raw_api_error == code, f"{where}: errorCode {error.raw_api_error}, expected {code}")
        return
    check(False, f"{where}: no APIException")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(header=None, claims=None, signature=b"\x01" * 64):
    now = int(time.time())
    head = {"alg": "ES256", "kid": "KEYID12345", "typ": "JWT"}
    body = {"iss": str(uuid.uuid4()), "iat": now, "exp": now + 600, "aud": "appstoreconnect-v1", "bid": BUNDLE_ID}
    head.update(header or {})
    body.update(claims or {})
    head = {k: v for k, v in head.items() if v is not None}
    body = {k: v for k, v in body.items() if v is not None}
    return ".".join([b64url(json.dumps(head).encode()), b64url(json.dumps(body).encode()), b64url(signature)])


def main():
    with tempfile.TemporaryDirectory(prefix="tipjar-serverapi-") as folder:
        dashboard = Dashboard(folder)
        served = None
        try:
            served = run(dashboard)
        except (APIException, VerificationException) as error:
            # A call the library refused to complete, or a signed item it could not decode: a failure, with its story.
            traceback.print_exc()
            check(False, f"the check stopped at {type(error).__name__}: {error}")
        finally:
            dashboard.stop()
        if served:
            # One app per bundle ID: the same database served as another app answers none of the first app's
            # transactions, as Apple answers 4040010 for another app's.
            other = Dashboard(folder, ["--bundle-id", "com.other.app"])
            try:
                other.api("PUT", "/api/store", {"environment": "LocalTesting"})
                client = client_for(other, bundle_id="com.other.app")
                tid, app_transaction_id = served
                for name, call in [("Get Transaction Info", lambda: client.get_transaction_info(tid)),
                                   ("history v2", lambda: client.get_transaction_history(tid, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)),
                                   ("history v2 by appTransactionId", lambda: client.get_transaction_history(app_transaction_id, None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)),
                                   ("refund history", lambda: client.get_refund_history(tid, None)),
                                   ("app transaction", lambda: client.get_app_transaction_info(tid))]:
                    expect_api_error(call, 404, APIError.TRANSACTION_ID_NOT_FOUND, f"another bundle ID: {name} of the first app's transaction")
                order = client.look_up_order_id(f"M{tid}")
                check(order.status == OrderLookupStatus.INVALID, "another bundle ID: Look Up Order ID of the first app's order is INVALID")
            except (APIException, VerificationException) as error:
                traceback.print_exc()
                check(False, f"the bundle check stopped at {type(error).__name__}: {error}")
            finally:
                other.stop()
    print(f"check_server_api.py: {passed} passed, {len(failures)} failed")
    return 1 if failures else 0


def run(d):
    # A purchase in the default environment, Xcode: its jwsRepresentation decodes as the device's would.
    xcode_install = d.api("POST", "/api/installs", {"accountID": "xcode-dev", "launch": True}, expect=201)
    bought = d.api("POST", f"/api/installs/{xcode_install['id']}/purchases", {"productID": COFFEE})
    xcode_tx = d.api("GET", f"/api/transactions/{bought['transactionID']}")
    xcode_verifier = SignedDataVerifier([], False, Environment.XCODE, BUNDLE_ID)
    decoded = xcode_verifier.verify_and_decode_signed_transaction(xcode_tx["jwsRepresentation"])
    check(decoded.rawEnvironment == "Xcode", "an Xcode transaction's JWS says environment Xcode")
    holds_payload(decoded, xcode_tx["jwsPayload"], "jwsRepresentation (Xcode)")
    header = json.loads(base64.urlsafe_b64decode(xcode_tx["jwsRepresentation"].split(".")[0] + "=="))
    check(header == {"alg": "none"} and xcode_tx["jwsRepresentation"].endswith("."), "the JWS is unsecured: {\"alg\":\"none\"}, no signature")

    # The store becomes a local App Store server; every purchase from now on is issued in LocalTesting.
    d.api("PUT", "/api/store", {"environment": "LocalTesting"})
    install = d.api("POST", "/api/installs", {"accountID": "ana", "launch": True}, expect=201)
    token_value = str(uuid.uuid4())
    ids = []
    for index in range(22):
        product = [COFFEE, SNACK, LUNCH][index % 3]
        body = {"productID": product}
        if index % 5 == 0:
            body.update({"quantity": 3, "appAccountToken": token_value})
        ids.append(d.api("POST", f"/api/installs/{install['id']}/purchases", body)["transactionID"])
    d.api("POST", f"/api/transactions/{ids[1]}/refund", {"reason": "developerIssue"})
    d.api("POST", f"/api/transactions/{ids[4]}/refund", {"revocationType": "REFUND_PRORATED", "revocationPercentage": 25000})
    shown = {t["transactionID"]: t for t in d.api("GET", "/api/transactions?accountID=ana&pageSize=200")["transactions"]}
    check(sorted(shown) == sorted(ids), "the JSON API lists the 22 purchases")

    client = client_for(d)
    verifier = SignedDataVerifier([], False, Environment.LOCAL_TESTING, BUNDLE_ID)

    # Get Transaction Info, for each.
    for tid in ids:
        info = client.get_transaction_info(str(tid))
        decoded = verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo)
        holds_payload(decoded, shown[tid]["jwsPayload"], f"Get Transaction Info {tid}")
        check(info.signedTransactionInfo == shown[tid]["jwsRepresentation"], f"Get Transaction Info {tid}: the same JWS as jwsRepresentation")
    first = shown[ids[0]]["jwsPayload"]
    check(first["quantity"] == 3 and first["appAccountToken"] == token_value and first["price"] == 2970,
          "quantity 3, the appAccountToken and the price in milliunits (3 x 0.99 = 2970) are signed")
    check(shown[ids[1]]["jwsPayload"].get("revocationReason") == 1 and shown[ids[4]]["jwsPayload"].get("revocationPercentage") == 25000,
          "the refunds' reason and percentage are signed")
    check(first["environment"] == "LocalTesting" and first["bundleId"] == BUNDLE_ID, "environment LocalTesting and the bundle ID are signed")

    # Get Transaction History v2: pages of 20, every purchase once (finished consumables included), in order.
    def history(request, sort_check=None):
        seen, revision, pages = [], None, 0
        while True:
            response = client.get_transaction_history(str(ids[3]), revision, request, GetTransactionHistoryVersion.V2)
            pages += 1
            check(response.rawEnvironment == "LocalTesting" and response.bundleId == BUNDLE_ID, "history: environment and bundleId")
            check(len(response.signedTransactions) <= 20, "history: at most 20 per page")
            for signed in response.signedTransactions:
                seen.append(verifier.verify_and_decode_signed_transaction(signed))
            revision = response.revision
            if not response.hasMore or pages > 10:
                return seen, pages
    everything, pages = history(TransactionHistoryRequest(sort=Order.ASCENDING))
    check(pages == 2 and sorted(int(t.transactionId) for t in everything) == sorted(ids), f"history: 22 transactions in 2 pages ({pages})")
    for decoded in everything:
        holds_payload(decoded, shown[int(decoded.transactionId)]["jwsPayload"], f"history {decoded.transactionId}")
    dates = [t.signedDate for t in everything]
    check(dates == sorted(dates), "history ASCENDING: oldest modified first")
    newest, _ = history(TransactionHistoryRequest(sort=Order.DESCENDING))
    check([t.transactionId for t in newest] == [t.transactionId for t in everything][::-1], "history DESCENDING: the reverse")
    coffees, _ = history(TransactionHistoryRequest(productIds=[COFFEE]))
    check(sorted(int(t.transactionId) for t in coffees) == sorted(ids[0::3]), "history productId filter")
    revoked, _ = history(TransactionHistoryRequest(revoked=True))
    check(sorted(int(t.transactionId) for t in revoked) == sorted([ids[1], ids[4]]), "history revoked filter")
    consumables, _ = history(TransactionHistoryRequest(productTypes=[ProductType.CONSUMABLE]))
    none, _ = history(TransactionHistoryRequest(productTypes=[ProductType.NON_CONSUMABLE]))
    check(len(consumables) == 22 and none == [], "history productType filter")
    start = shown[ids[10]]["jwsPayload"]["purchaseDate"]
    later, _ = history(TransactionHistoryRequest(startDate=start))
    check(all(t.purchaseDate >= start for t in later) and ids[10] in [int(t.transactionId) for t in later], "history startDate filter")
    expect_api_error(lambda: client.get_transaction_history(str(ids[3]), "not-a-revision", TransactionHistoryRequest(), GetTransactionHistoryVersion.V2),
                     400, APIError.INVALID_REQUEST_REVISION, "history with a revision it did not write")

    # Look Up Order ID.
    order = client.look_up_order_id(shown[ids[2]]["orderID"])
    check(order.status == OrderLookupStatus.VALID and len(order.signedTransactions) == 1, "Look Up Order ID: valid, one transaction")
    holds_payload(verifier.verify_and_decode_signed_transaction(order.signedTransactions[0]), shown[ids[2]]["jwsPayload"], "Look Up Order ID")
    missing = client.look_up_order_id("MNOTANORDER")
    check(missing.status == OrderLookupStatus.INVALID and missing.signedTransactions == [], "Look Up Order ID: an unknown order is INVALID")

    # Get Refund History: the account's two refunds, by revocation date.
    refunds = client.get_refund_history(str(ids[0]), None)
    refunded = [verifier.verify_and_decode_signed_transaction(s) for s in refunds.signedTransactions]
    check([int(t.transactionId) for t in refunded] == [ids[1], ids[4]] and refunds.hasMore is False, "Get Refund History: both refunds, in order")
    for decoded in refunded:
        holds_payload(decoded, shown[int(decoded.transactionId)]["jwsPayload"], f"refund history {decoded.transactionId}")

    # Send Consumption Information, v2 and v1.
    client.send_consumption_information(str(ids[4]), ConsumptionRequest(
        customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED,
        consumptionPercentage=25000, refundPreference=RefundPreference.GRANT_PRORATED))
    check(True, "Send Consumption Information (v2) accepted")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        client.send_consumption_data(str(ids[4]), ConsumptionRequestV1(
            customerConsented=True, consumptionStatus=ConsumptionStatus.PARTIALLY_CONSUMED, platform=Platform.APPLE,
            sampleContentProvided=False, deliveryStatus=DeliveryStatusV1.DELIVERED_AND_WORKING_PROPERLY, appAccountToken=token_value,
            accountTenure=AccountTenure.TEN_DAYS_TO_THIRTY_DAYS, playTime=PlayTime.FIVE_TO_SIXTY_MINUTES,
            lifetimeDollarsRefunded=LifetimeDollarsRefunded.ZERO_DOLLARS,
            lifetimeDollarsPurchased=LifetimeDollarsPurchased.ONE_CENT_TO_FORTY_NINE_DOLLARS_AND_NINETY_NINE_CENTS,
            userStatus=UserStatus.ACTIVE, refundPreference=RefundPreferenceV1.NO_PREFERENCE))
    check(True, "Send Consumption Information (v1) accepted")

    # Errors, as Apple answers them.
    expect_api_error(lambda: client.get_transaction_info("999999999"), 404, APIError.TRANSACTION_ID_NOT_FOUND, "unknown transaction")
    expect_api_error(lambda: client.get_transaction_info("abc"), 400, APIError.INVALID_TRANSACTION_ID, "transaction ID not a number")
    expect_api_error(lambda: client.get_refund_history("999999999", None), 404, APIError.TRANSACTION_ID_NOT_FOUND, "refunds of an unknown transaction")
    expect_api_error(lambda: client_for(d, bundle_id="com.example.other").get_transaction_info(str(ids[0])), 401, None, "a token for another bundle ID")
    url = f"{d.base}/inApps/v1/transactions/{ids[0]}"
    malformed = {
        "no Authorization": None,
        "not Bearer": "Basic " + token(),
        "not a JWT": "Bearer abc.def",
        "alg HS256": "Bearer " + token(header={"alg": "HS256"}),
        "no kid": "Bearer " + token(header={"kid": None}),
        "typ not JWT": "Bearer " + token(header={"typ": "JWS"}),
        "aud wrong": "Bearer " + token(claims={"aud": "appstoreconnect-v2"}),
        "no iss": "Bearer " + token(claims={"iss": None}),
        "expired": "Bearer " + token(claims={"exp": int(time.time()) - 10}),
        "exp 61 minutes after iat": "Bearer " + token(claims={"exp": int(time.time()) + 3660}),
        "signature not 64 bytes": "Bearer " + token(signature=b"\x01" * 10),
    }
    for name, authorization in malformed.items():
        response = requests.get(url, headers={"Authorization": authorization} if authorization else {}, timeout=30)
        check(response.status_code == 401 and response.headers.get("WWW-Authenticate", "").startswith("Bearer"), f"malformed JWT ({name}): 401, got {response.status_code}")
    good = requests.get(url, headers={"Authorization": "Bearer " + token(claims={"iat": None})}, timeout=30)
    check(good.status_code == 200, f"a well-shaped token without iat, as the library sends it: 200, got {good.status_code}")

    def put(path, body):
        return requests.put(d.base + path, data=json.dumps(body), timeout=30,
                            headers={"Authorization": "Bearer " + token(), "Content-Type": "application/json"})
    v2 = f"/inApps/v2/transactions/consumption/{ids[4]}"
    v1 = f"/inApps/v1/transactions/consumption/{ids[4]}"
    wrong = [
        (v2, {"customerConsented": "yes", "sampleContentProvided": False, "deliveryStatus": "DELIVERED"}, APIError.INVALID_CUSTOMER_CONSENTED),
        (v2, {"customerConsented": True, "sampleContentProvided": 0, "deliveryStatus": "DELIVERED"}, APIError.INVALID_SAMPLE_CONTENT_PROVIDED),
        (v2, {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": 0}, APIError.INVALID_DELIVERY_STATUS),
        (v2, {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": "DELIVERED", "consumptionPercentage": "half"}, APIError.GENERAL_BAD_REQUEST),
        (v1, {"customerConsented": True, "consumptionStatus": "2", "platform": 1, "sampleContentProvided": False, "deliveryStatus": 0,
              "appAccountToken": "", "accountTenure": 0, "playTime": 0, "lifetimeDollarsRefunded": 0, "lifetimeDollarsPurchased": 0,
              "userStatus": 0}, APIError.INVALID_CONSUMPTION_STATUS),
        (v1, {"customerConsented": True, "consumptionStatus": 2, "platform": 1, "sampleContentProvided": False, "deliveryStatus": 0,
              "appAccountToken": "not-a-uuid", "accountTenure": 0, "playTime": 0, "lifetimeDollarsRefunded": 0,
              "lifetimeDollarsPurchased": 0, "userStatus": 0}, APIError.INVALID_APP_ACCOUNT_TOKEN),
    ]
    for path, body, code in wrong:
        response = put(path, body)
        answer = response.json() if response.headers.get("Content-Type") == "application/json" else {}
        check(response.status_code == 400 and answer.get("errorCode") == code, f"PUT {path} {body}: 400 with {int(code)}, got {response.status_code} {answer}")

    # The environment is stamped per transaction: the Xcode purchase stays Xcode, and a LocalTesting verifier refuses it.
    try:
        verifier.verify_and_decode_signed_transaction(xcode_tx["jwsRepresentation"])
        check(False, "a LocalTesting verifier refuses a transaction issued in Xcode")
    except VerificationException as error:
        check(error.status == VerificationStatus.INVALID_ENVIRONMENT, "a LocalTesting verifier refuses a transaction issued in Xcode")
    # Each environment is its own data set, as Apple's sandbox and production are: in LocalTesting the Xcode purchase is
    # not found, by ID or in its account's history, and the Xcode account's notifications are not listed.
    expect_api_error(lambda: client.get_transaction_info(str(xcode_tx["transactionID"])), 404, APIError.TRANSACTION_ID_NOT_FOUND,
                     "Get Transaction Info of an Xcode transaction in LocalTesting")
    expect_api_error(lambda: client.get_transaction_history(str(xcode_tx["transactionID"]), None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2),
                     404, APIError.TRANSACTION_ID_NOT_FOUND, "history of an Xcode transaction in LocalTesting")
    d.api("PUT", "/api/store", {"environment": "Xcode"})
    xcode_client = client_for(d)
    xcode_history = xcode_client.get_transaction_history(str(xcode_tx["transactionID"]), None, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
    check(xcode_history.rawEnvironment == "Xcode" and [xcode_verifier.verify_and_decode_signed_transaction(s).transactionId for s in xcode_history.signedTransactions]
          == [str(xcode_tx["transactionID"])], "in Xcode the history lists the Xcode purchase, which an XCODE verifier decodes")
    expect_api_error(lambda: xcode_client.get_transaction_info(str(ids[0])), 404, APIError.TRANSACTION_ID_NOT_FOUND,
                     "Get Transaction Info of a LocalTesting transaction in Xcode")
    d.api("PUT", "/api/store", {"environment": "LocalTesting"})

    check_newer_endpoints(d, client, verifier, ids, shown)
    return str(ids[0]), shown[ids[0]]["jwsPayload"]["appTransactionId"]

    # The export carries the same JWS.
    export = d.api("GET", "/api/transactions?accountID=ana&format=csv")
    rows = list(csv.DictReader(io.StringIO(export)))
    check(all(row["jwsRepresentation"] == shown[int(row["transactionID"])]["jwsRepresentation"] for row in rows) and len(rows) == 22,
          "the CSV export's jwsRepresentation column")


def check_newer_endpoints(d, client, verifier, ids, shown):
    """The endpoints a consumable's backend meets through the library's defaults: Get Transaction History v1 (the
    library's default version), Finish Transaction, Get App Transaction Info, appTransactionId as the customer, and
    the consumption body's members."""
    app_transaction_id = shown[ids[0]]["jwsPayload"]["appTransactionId"]

    # Get Transaction History v1, the library's default: no finished consumable unless refunded
    # (https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history-v1). Every purchase above
    # was finished by the app, so v1 lists the two refunds only.
    def pages(any_id, version, request=None):
        seen, revision = [], None
        for _ in range(20):
            response = client.get_transaction_history(any_id, revision, request or TransactionHistoryRequest(sort=Order.ASCENDING), version)
            seen += [verifier.verify_and_decode_signed_transaction(signed) for signed in response.signedTransactions]
            revision = response.revision
            if not response.hasMore:
                break
        return seen
    v1 = pages(str(ids[3]), GetTransactionHistoryVersion.V1)
    check(sorted(int(t.transactionId) for t in v1) == sorted([ids[1], ids[4]]),
          f"history v1 (the library's default) lists unfinished and refunded consumables only: {[t.transactionId for t in v1]}")
    v1_default = client.get_transaction_history(str(ids[3]), None, TransactionHistoryRequest())
    check(v1_default.rawEnvironment == "LocalTesting" and v1_default.bundleId == BUNDLE_ID, "history v1 answers a HistoryResponse")

    # appTransactionId, taken wherever Apple takes "any transactionId, originalTransactionId, or appTransactionId".
    by_app = pages(app_transaction_id, GetTransactionHistoryVersion.V2)
    check(sorted(int(t.transactionId) for t in by_app) == sorted(ids), "history v2 by appTransactionId: the customer's 22 purchases")
    refunds = client.get_refund_history(app_transaction_id, None)
    check(sorted(int(verifier.verify_and_decode_signed_transaction(s).transactionId) for s in refunds.signedTransactions) == sorted([ids[1], ids[4]]),
          "Get Refund History by appTransactionId")
    expect_api_error(lambda: client.get_transaction_info(app_transaction_id), 400, APIError.APP_TRANSACTION_ID_NOT_SUPPORTED_ERROR,
                     "Get Transaction Info takes a transactionId, not an appTransactionId")

    # Get App Transaction Info: a signedAppTransactionInfo the library's verifier decodes, by any ID of the customer.
    for any_id in (str(ids[5]), app_transaction_id):
        info = client.get_app_transaction_info(any_id)
        app = verifier.verify_and_decode_app_transaction(info.signedAppTransactionInfo)
        check(app.appTransactionId == app_transaction_id and app.bundleId == BUNDLE_ID and app.rawReceiptType == "LocalTesting",
              f"Get App Transaction Info ({any_id}): the customer's appTransactionId, bundle ID and environment")
        check(app.originalPurchaseDate is not None and app.originalPurchaseDate <= shown[ids[0]]["jwsPayload"]["purchaseDate"],
              "the app transaction's originalPurchaseDate is no later than the first purchase")
    expect_api_error(lambda: client.get_app_transaction_info("999999999"), 404, APIError.TRANSACTION_ID_NOT_FOUND, "app transaction of nobody")

    # Finish Transaction: an unfinished purchase (the app stopped before finish) is finished by the server; it then
    # leaves the app's unfinished transactions and history v1.
    install = d.api("POST", "/api/installs", {"accountID": "finisher", "launch": True}, expect=201)
    d.api("PUT", "/api/store", {"finishIgnored": True})
    tid = d.api("POST", f"/api/installs/{install['id']}/purchases", {"productID": COFFEE})["transactionID"]
    d.api("PUT", "/api/store", {"finishIgnored": False})
    before = d.api("GET", f"/api/transactions/{tid}")
    listed = [verifier.verify_and_decode_signed_transaction(s).transactionId for s in client.get_transaction_history(str(tid), None, TransactionHistoryRequest()).signedTransactions]
    check(before["isFinished"] is False and str(tid) in listed, f"an unfinished purchase is in history v1 ({before['isFinished']}, {listed})")
    client.finish_transaction(str(tid))
    after = d.api("GET", f"/api/transactions/{tid}")
    listed = client.get_transaction_history(str(tid), None, TransactionHistoryRequest()).signedTransactions
    check(after["isFinished"] is True and listed == [], f"Finish Transaction finishes it: isFinished {after['isFinished']}, history v1 {len(listed)}")
    client.finish_transaction(str(tid))
    check(True, "Finish Transaction again answers as the first time")
    expect_api_error(lambda: client.finish_transaction("999999999"), 404, APIError.TRANSACTION_ID_NOT_FOUND, "Finish Transaction of an unknown ID")
    expect_api_error(lambda: client.finish_transaction("abc"), 400, APIError.INVALID_TRANSACTION_ID, "Finish Transaction of a non-number")

    # Set App Account Token: the transaction's JWS carries the new token; a token that is not a UUID is 4000183.
    new_token = str(uuid.uuid4())
    client.set_app_account_token(str(ids[7]), UpdateAppAccountTokenRequest(appAccountToken=new_token))
    info = verifier.verify_and_decode_signed_transaction(client.get_transaction_info(str(ids[7])).signedTransactionInfo)
    check(info.appAccountToken == new_token, f"Set App Account Token: the transaction now carries it ({info.appAccountToken})")
    expect_api_error(lambda: client.set_app_account_token(str(ids[7]), UpdateAppAccountTokenRequest(appAccountToken="not-a-uuid")),
                     400, APIError.INVALID_APP_ACCOUNT_TOKEN_UUID_ERROR, "Set App Account Token with a token that is not a UUID")
    expect_api_error(lambda: client.set_app_account_token("999999999", UpdateAppAccountTokenRequest(appAccountToken=new_token)),
                     404, APIError.TRANSACTION_ID_NOT_FOUND, "Set App Account Token of an unknown transaction")
    expect_api_error(lambda: client.set_app_account_token(app_transaction_id, UpdateAppAccountTokenRequest(appAccountToken=new_token)),
                     400, APIError.APP_TRANSACTION_ID_NOT_SUPPORTED_ERROR, "Set App Account Token takes an originalTransactionId")

    # Send Consumption Information holds Apple's fields only: an unknown member is a 400 naming it, and nothing is stored.
    body = {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": "DELIVERED",
            "padding": "x" * 1000, "extra": {"nested": [1, 2, 3]}}
    response = requests.put(f"{d.base}/inApps/v2/transactions/consumption/{ids[6]}", data=json.dumps(body), timeout=30,
                            headers={"Authorization": "Bearer " + token(), "Content-Type": "application/json"})
    answer = response.json()
    check(response.status_code == 400 and answer.get("errorCode") == APIError.GENERAL_BAD_REQUEST and '"padding"' in answer.get("errorMessage", "")
          and '"extra"' in answer.get("errorMessage", ""), f"a consumption body with unknown members: 400 naming them, got {response.status_code} {answer}")
    check("padding" not in d.api("GET", f"/transactions/{ids[6]}"), "the refused consumption body is not stored (the transaction page)")


if __name__ == "__main__":
    sys.exit(main())
