import Foundation
import HTTPServer
import TipJar
import TipJarScenario

/// The App Store Server API, under Apple's paths and in Apple's shapes
/// (https://developer.apple.com/documentation/appstoreserverapi), answering for the store's transactions as a local
/// App Store server would (Sources/TipJarDashboard/README.md, "App Store Server API"): a developer's backend, pointed
/// here with Apple's App Store Server Library in the `LocalTesting` environment, reads what the simulated devices bought.
///
/// Every route needs a bearer JWT of Apple's shape (``AppStoreServerAPIToken``; its signature is not verified), checked
/// by its area's middleware (``gate``), and errors are answered as Apple does (``AppStoreServerAPIError``, the area's
/// error format). Signed transactions are the transactions' unsecured JWS
/// (``CompactJWS``). The routes pass the same JSON origin check as the JSON API (the admin token, when set, is then sent
/// as the `tipjar_admin` cookie, the `Authorization` field holding the JWT); they take JSON, not forms, so no CSRF token.
struct AppStoreServerAPIController: DashboardController {
    let service: TipJarService
    /// The current UNIX time in seconds, for the token's `exp` and `iat`.
    let now: @Sendable () -> Int64
    /// The store's clock, for the notifications' dates.
    var clock: @Sendable () -> Date = { Date() }
    /// New `notificationUUID`s and test tokens.
    var makeUUID: @Sendable () -> String = { UUID.timeOrdered(at: Date()).uuidString.lowercased() }
    /// The accounts by `appTransactionId`, derived once for every request this controller answers.
    let appTransactions = AppTransactionIndex()

    /// Transactions per page of the history and refund lookups: "up to 20" (Apple).
    static let pageSize = 20

    func register(in router: inout Router<DashboardContext>) {
        registerNotifications(in: &router)
        // Get Transaction Info: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info
        router.get("/inApps/v1/transactions/:tid") { request, context in
            let stored = try await transaction(context)
            struct Body: Encodable { var signedTransactionInfo: String }
            return JSONBody.response(Body(signedTransactionInfo: Self.signed(stored)))
        }
        // Get Transaction History (v2): https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
        router.get("/inApps/v2/history/:tid") { request, context in
            try await history(request, context, version: .v2)
        }
        // Get Transaction History V1 (deprecated): https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history-v1
        router.get("/inApps/v1/history/:tid") { request, context in
            try await history(request, context, version: .v1)
        }
        // Get App Transaction Info: https://developer.apple.com/documentation/appstoreserverapi/get-app-transaction-info
        router.get("/inApps/v1/transactions/appTransactions/:tid") { request, context in
            let accountID = try await customer(context)
            let firstSeen = try await service.records.firstSeen(accountID: accountID) ?? clock()
            let payload = APIModels.JWSAppTransactionPayload(
                accountID: accountID, bundleID: service.appBundleID, environment: service.settings.environment, firstSeen: firstSeen, now: clock())
            struct Body: Encodable { var signedAppTransactionInfo: String }
            return JSONBody.response(Body(signedAppTransactionInfo: CompactJWS.unsecured(payload)))
        }
        // Finish Transaction: https://developer.apple.com/documentation/appstoreserverapi/finish-transaction
        router.post("/inApps/v1/transactions/:tid/finish") { request, context in
            let stored = try await transaction(context)
            try await service.finishTransaction(transactionID: stored.transaction.id)
            return HTTPResponse(status: .ok)
        }
        // Set App Account Token: https://developer.apple.com/documentation/appstoreserverapi/set-app-account-token
        router.put("/inApps/v1/transactions/:tid/appAccountToken") { request, context in
            let body = try AppStoreServerAPIRequests.object(request.body)
            try AppStoreServerAPIRequests.checkMembers(body, of: "UpdateAppAccountTokenRequest", in: ["appAccountToken"])
            guard case .string(let text)? = body["appAccountToken"], text.utf8.count == 36, let token = UUID(uuidString: text) else {
                throw AppStoreServerAPIError.invalidAppAccountTokenUUID
            }
            let stored = try await transaction(context)
            try await service.setAppAccountToken(token, transactionID: stored.transaction.id)
            return HTTPResponse(status: .ok)
        }
        // Look Up Order ID: https://developer.apple.com/documentation/appstoreserverapi/look-up-order-id
        router.get("/inApps/v1/lookup/:orderId") { request, context in
            let orderID = try context.parameters.require("orderId")
            struct Body: Encodable {
                var status: Int
                var signedTransactions: [String]
            }
            guard let id = Transaction.transactionID(orderID: orderID), let stored = try await service.records.transaction(withID: id),
                isServed(stored)
            else { return JSONBody.response(Body(status: 1, signedTransactions: [])) }
            return JSONBody.response(Body(status: 0, signedTransactions: [Self.signed(stored)]))
        }
        // Get Refund History (v2): https://developer.apple.com/documentation/appstoreserverapi/get-refund-history
        router.get("/inApps/v2/refund/lookup/:tid") { request, context in
            let revision = try AppStoreServerAPIRequests.Position(revision: request.queryValue("revision"))
            let accountID = try await customer(context)
            let rows = try await service.records.serverAPITransactions(
                matching: ServerAPIHistoryQuery(
                    accountID: accountID, environment: service.settings.environment, appBundleID: service.appBundleID, order: .revoked,
                    after: revision.map { ServerAPIHistoryQuery.Key(milliseconds: $0.milliseconds, id: $0.id) }, limit: Self.pageSize + 1))
            let page = Array(rows.prefix(Self.pageSize))
            let end = page.last.map(Self.revoked) ?? revision ?? AppStoreServerAPIRequests.Position(milliseconds: 0, id: 0)
            struct Body: Encodable {
                var signedTransactions: [String]
                var revision: String
                var hasMore: Bool
            }
            return JSONBody.response(Body(signedTransactions: page.map(Self.signed), revision: end.revision, hasMore: rows.count > page.count))
        }
        // Send Consumption Information V1:
        // https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information-v1
        router.put("/inApps/v1/transactions/consumption/:tid") { request, context in
            let body = try AppStoreServerAPIRequests.object(request.body)
            let stored = try await transaction(context)
            if let type = stored.transaction.productType, type != .consumable { throw AppStoreServerAPIError.notConsumable }
            try AppStoreServerAPIRequests.checkConsumptionV1(body)
            let json = JSONValue.object(body).text
            try await service.recordConsumption(json, transactionID: stored.transaction.id)
            try await service.consumptionInformationReceived(transactionID: stored.transaction.id, json: json)
            return HTTPResponse(status: .accepted)
        }
        // Send Consumption Information (v2): https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information
        router.put("/inApps/v2/transactions/consumption/:tid") { request, context in
            let body = try AppStoreServerAPIRequests.object(request.body)
            let stored = try await transaction(context)
            try AppStoreServerAPIRequests.checkConsumption(body)
            let json = JSONValue.object(body).text
            try await service.recordConsumption(json, transactionID: stored.transaction.id)
            try await service.consumptionInformationReceived(transactionID: stored.transaction.id, json: json)
            return HTTPResponse(status: .accepted)
        }
    }

    /// The middleware of this controller's area, in front of each of its routes: the bearer JWT (``AppStoreServerAPIGate``).
    var gate: AppStoreServerAPIGate { AppStoreServerAPIGate(bundleID: service.appBundleID, now: now) }

    /// The Get Transaction History versions: v1 leaves out finished consumables that are not refunded ("The results
    /// don't include consumable in-app purchases that the app marks as finished",
    /// https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history-v1); v2 lists them. Apple
    /// documents no other difference: both take the same query and answer a `HistoryResponse`.
    enum HistoryVersion { case v1, v2 }

    /// A page of Get Transaction History: the customer's purchased transactions in this environment and app, by
    /// modified date (keyset paging from the revision: one index range per page, whatever the history's size).
    func history(_ request: HTTPRequest, _ context: DashboardContext, version: HistoryVersion) async throws -> HTTPResponse {
        let query = try AppStoreServerAPIRequests.HistoryQuery(request)
        let accountID = try await customer(context)
        // A tip is bought by the account itself and belongs to no subscription group.
        let matchesNothing = query.ownershipType == "FAMILY_SHARED" || !query.subscriptionGroups.isEmpty
        let rows =
            matchesNothing
            ? []
            : try await service.records.serverAPITransactions(
                matching: ServerAPIHistoryQuery(
                    accountID: accountID, environment: service.settings.environment, appBundleID: service.appBundleID, order: .modified,
                    descending: query.descending, after: query.revision.map { ServerAPIHistoryQuery.Key(milliseconds: $0.milliseconds, id: $0.id) }, startDate: query.startDate,
                    endDate: query.endDate, productIDs: query.productIDs, productTypes: query.productTypes, revoked: query.revoked,
                    excludesFinishedConsumables: version == .v1, limit: Self.pageSize + 1))
        let page = Array(rows.prefix(Self.pageSize))
        let end = page.last.map(Self.modified) ?? query.revision ?? AppStoreServerAPIRequests.Position(milliseconds: 0, id: 0)
        struct Body: Encodable {
            var revision: String
            var hasMore: Bool
            var bundleId: String
            var environment: String
            var signedTransactions: [String]
        }
        return JSONBody.response(
            Body(
                revision: end.revision, hasMore: rows.count > page.count, bundleId: service.appBundleID,
                environment: service.settings.environment.rawValue, signedTransactions: page.map(Self.signed)))
    }

    /// Whether the App Store Server API answers for `stored`: a purchased transaction (an Ask to Buy request and an
    /// interrupted purchase are none) of the environment the store is now in and of this app (`serve --bundle-id`, the
    /// token's `bid`). Apple keeps each environment's data apart ("Sandbox and production environments are
    /// separate", https://developer.apple.com/documentation/appstoreserverapi) and each app's, answering 4040010 for
    /// another's. A transaction saved before the bundle ID was kept counts as this app's.
    func isServed(_ stored: StoredTransaction) -> Bool {
        stored.status == .purchased && stored.transaction.environment == service.settings.environment
            && (stored.transaction.appBundleID ?? service.appBundleID) == service.appBundleID
    }

    /// The path's `:tid` as an identifier: digits only (`UInt64("+5")` would read a sign Apple's identifiers never carry).
    /// - Throws: `InvalidTransactionIdError` for anything else.
    static func identifier(_ context: DashboardContext) throws(AppStoreServerAPIError) -> (text: String, value: UInt64) {
        guard let text = context.parameters["tid"], text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = UInt64(text) else {
            throw .invalidTransactionID
        }
        return (text, id)
    }

    /// The purchased transaction the path's `:tid` names, for the endpoints that take a `transactionId` only (Get
    /// Transaction Info, Send Consumption Information, Finish Transaction).
    /// - Throws: `InvalidTransactionIdError` for an ID that is not a number; `AppTransactionIdNotSupportedError`
    ///   (4000048) for a customer's `appTransactionId`; `TransactionIdNotFoundError` for anything the API does not
    ///   answer for (``isServed(_:)``).
    func transaction(_ context: DashboardContext) async throws -> StoredTransaction {
        let id = try Self.identifier(context)
        if let stored = try await service.records.transaction(withID: id.value), isServed(stored) { return stored }
        if try await appTransactions.accountID(id.text, bundleID: service.appBundleID, records: service.records) != nil {
            throw AppStoreServerAPIError.appTransactionIDNotSupported
        }
        throw AppStoreServerAPIError.transactionIDNotFound
    }

    /// The customer (Apple Account) the path's `:tid` names, for the endpoints that take "any transactionId,
    /// originalTransactionId, or appTransactionId that belongs to the customer" (Get Transaction History, Get Refund
    /// History, Get App Transaction Info): a transaction this API answers for (a consumable's `originalTransactionId`
    /// is its `transactionId`), else an `appTransactionId` of this app.
    /// - Throws: `InvalidTransactionIdError` for an ID that is not a number, `TransactionIdNotFoundError` for one that
    ///   names no customer.
    func customer(_ context: DashboardContext) async throws -> String {
        let id = try Self.identifier(context)
        if let stored = try await service.records.transaction(withID: id.value), isServed(stored) { return stored.accountID }
        if let accountID = try await appTransactions.accountID(id.text, bundleID: service.appBundleID, records: service.records) { return accountID }
        throw AppStoreServerAPIError.transactionIDNotFound
    }

    /// The signed form of a transaction: its unsecured JWS.
    static func signed(_ stored: StoredTransaction) -> String { APIModels.JWSTransactionPayload(stored.transaction).jwsRepresentation }

    /// A refunded transaction's place in the refund history: its `revocationDate`, then its ID.
    static func revoked(_ stored: StoredTransaction) -> AppStoreServerAPIRequests.Position {
        AppStoreServerAPIRequests.Position(
            milliseconds: UTCTimestamp.milliseconds(since1970: stored.transaction.revocationDate ?? stored.transaction.signedDate), id: stored.transaction.id)
    }

    /// A transaction's place in the history: Apple sorts it "by … recently modified date", here `signedDate` (set again
    /// by a refund), then its ID.
    static func modified(_ stored: StoredTransaction) -> AppStoreServerAPIRequests.Position {
        AppStoreServerAPIRequests.Position(milliseconds: UTCTimestamp.milliseconds(since1970: stored.transaction.signedDate), id: stored.transaction.id)
    }
}
