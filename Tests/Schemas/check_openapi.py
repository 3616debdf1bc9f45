#!/usr/bin/env python3
"""Holds Public/api/openapi.json to the code, both ways.

1. The document is valid OpenAPI 3.1 (openapi-spec-validator).
2. A release server (TIPJAR_BIN, default .build/release/tipjar) on a temporary database and an
   ephemeral loopback port is asked every documented operation, with the answers each documented
   status stands for; every answer's status must be documented for its operation, its media type
   listed, and a JSON body must validate (jsonschema, JSON Schema 2020-12 as OpenAPI 3.1 uses) against
   the schema the document gives for that path, method and status.
3. Every operation of the document is exercised, and every documented status is seen at least once.
4. Every operation has a request example (when it takes a body) and an answer example for each success status, each
   valid against its schema (check_examples.py).

Exit 0 when all hold; otherwise every problem is printed and the exit status is 1.
"""
import base64
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import check_examples
import jsonschema
from openapi_spec_validator import validate as validate_spec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_openapi_notifications import exercise_notifications  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPEC_PATH = os.path.join(ROOT, "Public", "api", "openapi.json")
BINARY = os.environ.get("TIPJAR_BIN", os.path.join(ROOT, ".build", "release", "tipjar"))
COFFEE = "com.example.tipjar.tip.coffee"
SNACK = "com.example.tipjar.tip.snack"

problems = []
seen = set()  # (template, method, status)


def template_for(spec, path):
    """The document's path template that matches a concrete path (query removed)."""
    bare = path.split("?", 1)[0]
    for template in spec["paths"]:
        pattern = "^" + re.sub(r"\{[^/]+\}", "[^/]+", template) + "$"
        if re.match(pattern, bare):
            return template
    return None


class Client:
    def __init__(self, port, spec):
        self.port = port
        self.spec = spec

    def call(self, method, path, body=None, content_type=None, expect=None, headers=None):
        """A PATCH body goes as a JSON Merge Patch (RFC 7396), any other as application/json, unless content_type says."""
        if content_type is None:
            content_type = "application/merge-patch+json" if method == "PATCH" else "application/json"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = dict(headers or {})
        payload = None
        if body is not None:
            payload = body if isinstance(body, (bytes, str)) else json.dumps(body)
            if content_type:
                headers["Content-Type"] = content_type
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        raw = response.read()
        connection.close()
        self.check(method, path, response.status, response.getheader("Content-Type", ""), raw)
        if expect is not None and response.status != expect:
            problems.append(f"{method} {path}: the check expected {expect}, got {response.status}: {raw[:200]!r}")
        try:
            return response.status, json.loads(raw) if raw else None
        except ValueError:
            return response.status, raw.decode("utf-8", "replace")

    def check(self, method, path, status, content_type, raw):
        template = template_for(self.spec, path)
        where = f"{method} {path} -> {status}"
        if template is None:
            problems.append(f"{where}: the path is not in the document")
            return
        operation = self.spec["paths"][template].get(method.lower())
        if operation is None:
            problems.append(f"{where}: {method} is not documented for {template}")
            return
        seen.add((template, method.lower(), str(status)))
        documented = operation["responses"].get(str(status))
        if documented is None:
            problems.append(f"{where}: status {status} is not documented for {method} {template}")
            return
        documented = resolve(self.spec, documented)
        media = content_type.split(";", 1)[0].strip()
        if "content" not in documented:
            if raw:
                problems.append(f"{where}: the document gives no body for this status, the server sent {raw[:100]!r}")
            return
        content = documented["content"]
        if media not in content:
            problems.append(f"{where}: media type {media!r} is not documented (documented: {sorted(content)})")
            return
        if media != "application/json":
            return
        try:
            instance = json.loads(raw)
        except ValueError as error:
            problems.append(f"{where}: the body is not JSON: {error}")
            return
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                  "components": self.spec["components"], "allOf": [content[media]["schema"]]}
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
        for error in validator.iter_errors(instance):
            location = "/".join(str(part) for part in error.absolute_path) or "(root)"
            problems.append(f"{where}: {location}: {error.message[:300]}")


def resolve(spec, node):
    while "$ref" in node:
        parts = node["$ref"].lstrip("#/").split("/")
        node = spec
        for part in parts:
            node = node[part]
    return node


def start_server(folder):
    process = subprocess.Popen([BINARY, "serve", "--port", "0", "--database", os.path.join(folder, "tipjar.sqlite3")],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    banner = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", banner)
    if not match:
        process.kill()
        sys.exit(f"check_openapi.py: the server did not start: {banner!r}")
    return process, int(match.group(1))


def exercise(api):
    api.call("GET", "/api/openapi.json", expect=200)
    status, install = api.call("POST", "/api/installs", {"accountID": "ana", "launch": True, "label": "=HYPERLINK(\"x\")"}, expect=201)
    iid = install["id"]
    api.call("POST", "/api/installs", {"locale": "fr"}, expect=400)
    api.call("POST", "/api/installs", "{}", content_type="text/plain", expect=415)
    for query in ["", "?q=%3D&hearts=0&page=1&pageSize=10", "?format=json", "?format=csv"]:
        api.call("GET", "/api/installs" + query, expect=200)
    api.call("GET", "/api/installs?format=xml", expect=400)
    api.call("GET", f"/api/installs/{iid}", expect=200)
    api.call("GET", "/api/installs/nope", expect=404)
    api.call("PUT", f"/api/installs/{iid}/label", {"label": "Ana's iPhone"}, expect=200)
    api.call("PUT", f"/api/installs/{iid}/label", {"label": "x" * 101}, expect=400)
    api.call("PUT", f"/api/installs/{iid}/label", "{}", content_type="text/plain", expect=415)
    api.call("PUT", "/api/installs/nope/label", {"label": "x"}, expect=404)
    api.call("GET", f"/api/installs/{iid}/offers", expect=200)
    api.call("GET", "/api/installs/nope/offers", expect=404)
    api.call("PATCH", "/api/store", {"catalog": "failing"}, expect=200)
    api.call("GET", f"/api/installs/{iid}/offers", expect=200)
    api.call("PATCH", "/api/store", {"catalog": "normal", "listenerReemits": 1}, expect=200)
    api.call("GET", f"/api/installs/{iid}/offers", expect=200)  # the app loads again: a failed load refuses a purchase (409)
    status, purchase = api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    tid = purchase["transactionID"]
    api.call("PATCH", "/api/store", {"listenerReemits": 0, "purchaseOutcome": "failed", "purchaseError": "networkError"}, expect=200)
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    api.call("PATCH", "/api/store", {"purchaseOutcome": "success", "failures": {"verification": "invalidSignature"}}, expect=200)
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    api.call("PATCH", "/api/store", {"failures": {"verification": None}}, expect=200)
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": "com.example.nope"}, expect=422)
    api.call("POST", f"/api/installs/{iid}/purchases", {"product": COFFEE}, expect=400)
    api.call("POST", f"/api/installs/{iid}/purchases", "{}", content_type="text/plain", expect=415)
    api.call("POST", "/api/installs/nope/purchases", {"productID": COFFEE}, expect=404)
    # Two taps at once while a purchase takes 1.5 s: one opens it, the other gets 409.
    api.call("PATCH", "/api/store", {"purchaseLatencyMs": 1500}, expect=200)
    statuses = []
    taps = [threading.Thread(target=lambda: statuses.append(api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE})[0]))
            for _ in range(2)]
    for tap in taps:
        tap.start()
    for tap in taps:
        tap.join()
    if sorted(statuses) != [200, 409]:
        problems.append(f"two concurrent taps answered {sorted(statuses)}, expected [200, 409]")
    api.call("PATCH", "/api/store", {"purchaseLatencyMs": 0, "failures": {"sync": "networkError"}}, expect=200)
    api.call("POST", f"/api/installs/{iid}/restore", expect=503)
    api.call("PATCH", "/api/store", {"failures": {"sync": None}}, expect=200)
    api.call("POST", f"/api/installs/{iid}/restore", expect=200)
    api.call("POST", "/api/installs/nope/restore", expect=404)
    for action in ["stop", "launch"]:
        api.call("POST", f"/api/installs/{iid}/{action}", expect=200)
        api.call("POST", f"/api/installs/nope/{action}", expect=404)
    api.call("POST", f"/api/installs/{iid}/external-purchases", {"productID": "com.example.tipjar.tip.dessert"}, expect=201)
    api.call("POST", f"/api/installs/{iid}/external-purchases", {"productID": " "}, expect=400)
    api.call("POST", f"/api/installs/{iid}/external-purchases", "{}", content_type="text/plain", expect=415)
    api.call("POST", "/api/installs/nope/external-purchases", {"productID": COFFEE}, expect=404)
    for query in ["", "?format=json", "?format=csv"]:
        api.call("GET", f"/api/installs/{iid}/ledger{query}", expect=200)
    api.call("GET", f"/api/installs/{iid}/ledger?format=pdf", expect=400)
    api.call("GET", "/api/installs/nope/ledger", expect=404)
    status, recorded = api.call("GET", f"/api/installs/{iid}/scenario", expect=200)
    with open(os.path.join(ROOT, "Public", "scenarios", "schema", "scenario.schema.json"), encoding="utf-8") as handle:
        scenario_schema = json.load(handle)
    for error in jsonschema.Draft202012Validator(scenario_schema).iter_errors(recorded):
        problems.append(f"the recorded scenario does not match scenario.schema.json: {error.message[:300]}")
    api.call("GET", "/api/installs/nope/scenario", expect=404)
    # A transaction the first install never finished reaches a second install of the account: not recordable.
    api.call("PATCH", "/api/store", {"crashBeforeFinish": True}, expect=200)
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    api.call("PATCH", "/api/store", {"crashBeforeFinish": False}, expect=200)
    status, second = api.call("POST", "/api/installs", {"accountID": "ana", "launch": True}, expect=201)
    api.call("GET", f"/api/installs/{second['id']}/scenario", expect=409)
    api.call("GET", "/api/store", expect=200)
    # PUT sets the fields it names (kept for existing clients); PATCH is a JSON Merge Patch, null resets a setting.
    api.call("PUT", "/api/store", {"catalog": "slow", "failures": {"purchase": None}}, expect=200)
    api.call("PUT", "/api/store", {"colour": "red"}, expect=400)
    api.call("PUT", "/api/store", "{}", content_type="text/plain", expect=415)
    api.call("PATCH", "/api/store", {"catalog": None, "latencyMs": None}, expect=200)
    api.call("PATCH", "/api/store", {"colour": "red", "failures": {"flood": None}}, expect=400)
    api.call("PATCH", "/api/store", {"latencyMs": "slow"}, expect=400)
    api.call("PATCH", "/api/store", {"catalog": "normal"}, content_type="application/json", expect=415)
    api.call("PATCH", "/api/store", {"purchaseOutcome": "pending"}, expect=200)
    # Two Ask to Buy requests: the same tip asked for again would join the first (Sources/TipJar/README.md, "Ask to
    # Buy requests"), so the second is another tip. Their IDs are the requests' own.
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": SNACK}, expect=200)
    api.call("PATCH", "/api/store", {"purchaseOutcome": "success"}, expect=200)
    status, pending = api.call("GET", "/api/store/pending", expect=200)
    first, last = pending[0]["requestID"], pending[-1]["requestID"]
    api.call("POST", f"/api/store/pending/{first}/approve", expect=200)
    api.call("POST", f"/api/store/pending/{first}/approve", expect=409)
    api.call("POST", f"/api/store/pending/{last}/decline", expect=200)
    api.call("POST", f"/api/store/pending/{last}/decline", expect=409)
    api.call("POST", "/api/store/pending/999999/approve", expect=404)
    api.call("POST", "/api/store/pending/999999/decline", expect=404)
    # Interrupted purchases: one waits, is resolved once (its ledger row carries the trap's note), then 409; unknown → 404.
    api.call("PATCH", "/api/store", {"interruptedPurchases": True}, expect=200)
    api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    api.call("PATCH", "/api/store", {"interruptedPurchases": False}, expect=200)
    status, page = api.call("GET", f"/api/transactions?installID={iid}&status=interrupted", expect=200)
    interrupted = page["transactions"][0]["transactionID"]
    api.call("POST", f"/api/store/interrupted/{interrupted}/resolve", expect=200)
    api.call("POST", f"/api/store/interrupted/{interrupted}/resolve", expect=409)
    api.call("POST", "/api/store/interrupted/999999/resolve", expect=404)
    api.call("GET", f"/api/installs/{iid}/ledger", expect=200)
    api.call("GET", f"/api/transactions/{tid}", expect=200)
    api.call("GET", "/api/transactions/999999", expect=404)
    api.call("POST", f"/api/transactions/{tid}/refund", {"reason": "sometimes"}, expect=400)
    api.call("POST", f"/api/transactions/{tid}/refund", {"reason": "developerIssue"}, content_type="text/plain", expect=415)
    api.call("POST", f"/api/transactions/{tid}/refund", {"reason": "developerIssue"}, expect=200)
    api.call("POST", f"/api/transactions/{tid}/refund", expect=409)
    api.call("POST", "/api/transactions/999999/refund", expect=404)
    api.call("GET", f"/api/transactions/{tid}", expect=200)
    exercise_server_api(api, tid)
    exercise_history(api, iid, tid)
    exercise_refused_targets(api)
    exercise_refund_requests(api, iid)


def exercise_refund_requests(api, iid):
    """Refund requests from the app (Sources/TipJar/README.md, "Refund requests from the app"): received once, a
    duplicate 409, an injected Refund Request Sheet failure 503; the store's queue approves or declines once."""
    requested = []
    for _ in range(2):
        status, purchase = api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
        requested.append(purchase["transactionID"])
    for tid in requested:
        path = f"/api/installs/{iid}/transactions/{tid}/refund-request"
        api.call("POST", path, {"userAction": "cancel"}, expect=200)
        api.call("POST", path, {"userAction": "submit", "reason": "developerIssue"}, expect=200)
        api.call("POST", path, {"userAction": "submit"}, expect=409)
    path = f"/api/installs/{iid}/transactions/{requested[0]}/refund-request"
    api.call("POST", path, {"userAction": "later"}, expect=400)
    api.call("POST", path, {"userAction": "submit"}, content_type="text/plain", expect=415)
    api.call("POST", f"/api/installs/{iid}/transactions/999999/refund-request", {"userAction": "submit"}, expect=404)
    api.call("GET", "/api/store/refund-requests", expect=200)
    api.call("POST", f"/api/store/refund-requests/{requested[0]}/approve", expect=200)
    api.call("POST", f"/api/store/refund-requests/{requested[0]}/approve", expect=409)
    api.call("POST", f"/api/store/refund-requests/{requested[1]}/decline", expect=200)
    api.call("POST", f"/api/store/refund-requests/{requested[1]}/decline", expect=409)
    api.call("POST", "/api/store/refund-requests/999999/approve", expect=404)
    api.call("POST", "/api/store/refund-requests/999999/decline", expect=404)
    api.call("PATCH", "/api/store", {"failures": {"refundRequest": "failed"}}, expect=200)
    status, purchase = api.call("POST", f"/api/installs/{iid}/purchases", {"productID": COFFEE}, expect=200)
    api.call("POST", f"/api/installs/{iid}/transactions/{purchase['transactionID']}/refund-request", {"userAction": "submit"}, expect=503)
    api.call("PATCH", "/api/store", {"failures": {"refundRequest": None}}, expect=200)


def exercise_refused_targets(api):
    """Every operation with a path parameter, with that segment decoding to a control character: the HTTP
    layer refuses the request-target (400, text/plain) before any route is matched."""
    for template, item in api.spec["paths"].items():
        if "{" not in template:
            continue
        target = re.sub(r"\{[^/]+\}", "%01", template, count=1)
        for method in item:
            api.call(method.upper(), target, expect=400)


def bearer(claims=None):
    """An Authorization field with a JWT of Apple's shape (App Store Server API; its signature is not verified, so
    64 bytes of anything stand for the ES256 signature)."""
    def part(value):
        return base64.urlsafe_b64encode(value).rstrip(b"=").decode()
    now = int(time.time())
    body = {"iss": "issuer", "iat": now, "exp": now + 600, "aud": "appstoreconnect-v1", "bid": "com.example.tipjar"}
    body.update(claims or {})
    header = {"alg": "ES256", "kid": "KEYID12345", "typ": "JWT"}
    return {"Authorization": "Bearer " + ".".join([part(json.dumps(header).encode()), part(json.dumps(body).encode()), part(b"\1" * 64)])}


def exercise_server_api(api, tid):
    """The App Store Server API (/inApps/…): every operation with a good token, a bad one, a bad value and an
    unknown transaction; tid is a refunded transaction, so the refund history holds it."""
    good, bad = bearer(), bearer({"aud": "nope"})
    consumption = {"v1": {"customerConsented": True, "consumptionStatus": 2, "platform": 1, "sampleContentProvided": False,
                          "deliveryStatus": 0, "appAccountToken": "", "accountTenure": 3, "playTime": 2,
                          "lifetimeDollarsRefunded": 1, "lifetimeDollarsPurchased": 2, "userStatus": 1},
                   "v2": {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": "DELIVERED"}}
    for path in ["/inApps/v1/transactions/{}", "/inApps/v2/history/{}", "/inApps/v1/history/{}", "/inApps/v2/refund/lookup/{}",
                 "/inApps/v1/transactions/appTransactions/{}"]:
        api.call("GET", path.format(tid), headers=good, expect=200)
        api.call("GET", path.format(tid), headers=bad, expect=401)
        api.call("GET", path.format("abc"), headers=good, expect=400)
        api.call("GET", path.format(999999), headers=good, expect=404)
    status, page = api.call("GET", f"/inApps/v2/refund/lookup/{tid}", headers=good, expect=200)
    if len(page["signedTransactions"]) != 1:
        problems.append(f"GET /inApps/v2/refund/lookup/{tid}: expected the one refund, got {page}")
    for query in ["?sort=DESCENDING&productType=CONSUMABLE&revoked=true", f"?productId={COFFEE}&startDate=0&endDate=99999999999999",
                  "?revision=" + page["revision"]]:
        api.call("GET", f"/inApps/v2/history/{tid}{query}", headers=good, expect=200)
    for query in ["?sort=UP", "?startDate=-1", "?startDate=5&endDate=5", "?revoked=maybe", "?productType=TIP", "?revision=%25"]:
        api.call("GET", f"/inApps/v2/history/{tid}{query}", headers=good, expect=400)
    status, transaction = api.call("GET", f"/api/transactions/{tid}", expect=200)
    status, found = api.call("GET", f"/inApps/v1/lookup/{transaction['orderID']}", headers=good, expect=200)
    status, unknown = api.call("GET", "/inApps/v1/lookup/NOPE", headers=good, expect=200)
    if found["status"] != 0 or unknown["status"] != 1:
        problems.append(f"GET /inApps/v1/lookup: expected status 0 then 1, got {found['status']} and {unknown['status']}")
    api.call("GET", "/inApps/v1/lookup/M1", headers=bad, expect=401)
    api.call("POST", f"/inApps/v1/transactions/{tid}/finish", headers=good, expect=200)
    api.call("POST", f"/inApps/v1/transactions/{tid}/finish", headers=bad, expect=401)
    api.call("POST", "/inApps/v1/transactions/abc/finish", headers=good, expect=400)
    api.call("POST", "/inApps/v1/transactions/999999/finish", headers=good, expect=404)
    token_body = {"appAccountToken": "3f9d2c4e-8a1b-4c7d-9e2f-5a6b7c8d9e0f"}
    api.call("PUT", f"/inApps/v1/transactions/{tid}/appAccountToken", token_body, headers=good, expect=200)
    api.call("PUT", f"/inApps/v1/transactions/{tid}/appAccountToken", token_body, headers=bad, expect=401)
    api.call("PUT", f"/inApps/v1/transactions/{tid}/appAccountToken", {"appAccountToken": "nope"}, headers=good, expect=400)
    api.call("PUT", "/inApps/v1/transactions/999999/appAccountToken", token_body, headers=good, expect=404)
    api.call("PUT", f"/inApps/v1/transactions/{tid}/appAccountToken", "{}", content_type="text/plain", headers=good, expect=415)
    for version, body in consumption.items():
        path = f"/inApps/{version}/transactions/consumption/"
        api.call("PUT", path + str(tid), body, headers=good, expect=202)
        api.call("PUT", path + str(tid), body, headers=bad, expect=401)
        api.call("PUT", path + str(tid), dict(body, customerConsented="yes"), headers=good, expect=400)
        api.call("PUT", path + "999999", body, headers=good, expect=404)
        api.call("PUT", path + str(tid), "{}", content_type="text/plain", headers=good, expect=415)
    exercise_notifications(api, good, bad, tid)


def exercise_history(api, iid, tid):
    """Storefronts, the transaction list and its export, an account's views, and the session controls."""
    api.call("PUT", f"/api/installs/{iid}/storefront", {"storefront": "gbr"}, expect=200)
    api.call("PUT", f"/api/installs/{iid}/storefront", {"storefront": "ZZZ"}, expect=400)
    api.call("PUT", f"/api/installs/{iid}/storefront", "{}", content_type="text/plain", expect=415)
    api.call("PUT", "/api/installs/nope/storefront", {"storefront": "GBR"}, expect=404)
    status, page = api.call("GET", "/api/transactions?pageSize=1", expect=200)
    if not page["hasMore"]:
        problems.append("GET /api/transactions?pageSize=1: expected hasMore with several transactions")
    for query in ["", "?accountID=ana&status=purchased&page=2&pageSize=2", f"?installID={iid}&productID={COFFEE}",
                  "?format=json&status=pending", "?format=json&accountID=ana", "?format=csv"]:
        api.call("GET", "/api/transactions" + query, expect=200)
    for query in ["?status=refunded", "?page=0", "?pageSize=201", "?format=xlsx", "?accountID=" + "a" * 201]:
        api.call("GET", "/api/transactions" + query, expect=400)
    for query in ["", "?view=all", "?view=unfinished", "?view=currentEntitlements", f"?view=latest&productID={COFFEE}",
                  f"?productID={COFFEE}"]:
        api.call("GET", "/api/accounts/ana/transactions" + query, expect=200)
    api.call("GET", "/api/accounts/nobody/transactions", expect=200)
    for query in ["?view=latest", "?view=newest"]:
        api.call("GET", "/api/accounts/ana/transactions" + query, expect=400)
    api.call("POST", "/api/store/reset", expect=200)
    # A purchase open for 1.5 s: deleting its install meanwhile is a conflict.
    status, other = api.call("POST", "/api/installs", {"accountID": "bob", "launch": True}, expect=201)
    api.call("PATCH", "/api/store", {"purchaseLatencyMs": 1500}, expect=200)
    status = delete_during_purchase(api, other["id"])
    if status != 409:
        problems.append(f"DELETE /api/installs/{{id}} while a purchase is open: expected 409, got {status}")
    api.call("PATCH", "/api/store", {"purchaseLatencyMs": 0}, expect=200)
    api.call("DELETE", f"/api/installs/{other['id']}", expect=204)
    api.call("DELETE", f"/api/installs/{other['id']}", expect=404)
    api.call("DELETE", f"/api/transactions/{tid}", expect=204)
    api.call("DELETE", f"/api/transactions/{tid}", expect=404)
    api.call("DELETE", "/api/transactions/nope", expect=404)
    api.call("DELETE", "/api/transactions", expect=204)
    status, page = api.call("GET", "/api/transactions", expect=200)
    if page["transactions"]:
        problems.append("DELETE /api/transactions left transactions behind")


def delete_during_purchase(api, install_id):
    """Deletes an install while one of its purchases is open (the store's purchaseLatencyMs is 1.5 s): a tap
    starts one; a second tap answered 409 shows it is open, and the delete follows at once. When the second
    tap opened the purchase itself (it answers 200 after the latency), the pair is tried again."""
    purchases = f"/api/installs/{install_id}/purchases"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        tap = threading.Thread(target=lambda: api.call("POST", purchases, {"productID": COFFEE}))
        tap.start()
        status, _ = api.call("POST", purchases, {"productID": COFFEE})
        if status == 409:
            status, _ = api.call("DELETE", f"/api/installs/{install_id}")
            tap.join()
            return status
        tap.join()
    return None


def main():
    with open(SPEC_PATH, encoding="utf-8") as handle:
        spec = json.load(handle)
    validate_spec(spec)
    print(f"check_openapi.py: {os.path.relpath(SPEC_PATH, ROOT)} is valid OpenAPI {spec['openapi']}")
    # Every operation's request and success answers have examples, true to their schemas (check_examples.py).
    problems.extend(check_examples.problems_in(spec))
    with tempfile.TemporaryDirectory(prefix="tipjar-openapi-") as folder:
        process, port = start_server(folder)
        try:
            exercise(Client(port, spec))
        finally:
            process.terminate()
            process.wait(timeout=15)
    for template, item in spec["paths"].items():
        for method, operation in item.items():
            for status in operation["responses"]:
                if (template, method, status) not in seen:
                    problems.append(f"{method.upper()} {template} -> {status}: documented but never seen in this check")
    answers = len(seen)
    if problems:
        print("\n".join(f"check_openapi.py: {problem}" for problem in problems))
        print(f"check_openapi.py: FAILED with {len(problems)} problem(s)")
        return 1
    print(f"check_openapi.py: every documented operation and status seen ({answers} combinations), every answer matches its schema")
    return 0


if __name__ == "__main__":
    sys.exit(main())
