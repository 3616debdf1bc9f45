import Foundation
import HTTPServer
import TipJar

/// The App Store Server API, under Apple's paths and in Apple's shapes
/// (https://developer.apple.com/documentation/appstoreserverapi), answering for the store's transactions as a local
/// App Store server would (Sources/TipJarDashboard/README.md, "App Store Server API"): a developer's backend, pointed
/// here with Apple's App Store Server Library in the `LocalTesting` environment, reads what the simulated devices bought.
///
/// Every route needs a bearer JWT of Apple's shape (``AppStoreServerAPIToken``; its signature is not verified) and
/// answers errors as Apple does (``AppStoreServerAPIError``). Signed transactions are the transactions' unsecured JWS
/// (``CompactJWS``). The routes pass the same middlewares as the JSON API (the admin token, when set, is then sent as
/// the `tipjar_admin` cookie, the `Authorization` field holding the JWT); they take JSON, not forms, so no CSRF token.
struct AppStoreServerAPIController: DashboardController {
    let service: TipJarService
    /// The current UNIX time in seconds, for the token's `exp` and `iat`.
    let now: @Sendable () -> Int64
    /// The notifications queue, when the storage keeps one (AppStoreServerAPIController+Notifications.swift).
    var notifications: (any ServerNotificationStorage)? = nil
    /// The store's clock, for the notifications' dates.
    var clock: @Sendable () -> Date = { Date() }
    /// New `notificationUUID`s and test tokens.
    var makeUUID: @Sendable () -> String = { UUID().uuidString.lowercased() }

    /// Transactions per page of the history and refund lookups: "up to 20" (Apple).
    static let pageSize = 20

    func register(in router: inout Router<DashboardContext>) {
        registerNotifications(in: &router)
        // Get Transaction Info: https://developer.apple.com/documentation/appstoreserverapi/get-transaction-info
        router.get("/inApps/v1/transactions/:tid") { request, context in
            try await answer(request) {
                let stored = try await transaction(context)
                struct Body: Encodable { var signedTransactionInfo: String }
                return JSONBody.response(Body(signedTransactionInfo: Self.signed(stored)))
            }
        }
        // Get Transaction History (v2): https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history
        router.get("/inApps/v2/history/:tid") { request, context in
            try await answer(request) {
                let query = try AppStoreServerAPIRequests.HistoryQuery(request)
                let stored = try await transaction(context)
                let history = try await accountTransactions(stored.accountID).filter { query.includes($0.transaction) }
                let keyed = history.map { (position: Self.modified($0), item: $0) }
                    .sorted { query.descending ? $1.position.precedes($0.position) : $0.position.precedes($1.position) }
                let page = AppStoreServerAPIRequests.page(keyed, after: query.revision, descending: query.descending, pageSize: Self.pageSize)
                struct Body: Encodable {
                    var revision: String
                    var hasMore: Bool
                    var bundleId: String
                    var environment: String
                    var signedTransactions: [String]
                }
                return JSONBody.response(
                    Body(
                        revision: page.revision, hasMore: page.hasMore, bundleId: service.appBundleID,
                        environment: service.settings.environment.rawValue, signedTransactions: page.items.map(Self.signed)))
            }
        }
        // Look Up Order ID: https://developer.apple.com/documentation/appstoreserverapi/look-up-order-id
        router.get("/inApps/v1/lookup/:orderId") { request, context in
            try await answer(request) {
                let orderID = try context.parameters.require("orderId")
                struct Body: Encodable {
                    var status: Int
                    var signedTransactions: [String]
                }
                guard let id = Transaction.transactionID(orderID: orderID), let stored = try await service.records.transaction(withID: id),
                    stored.status == .purchased
                else { return JSONBody.response(Body(status: 1, signedTransactions: [])) }
                return JSONBody.response(Body(status: 0, signedTransactions: [Self.signed(stored)]))
            }
        }
        // Get Refund History (v2): https://developer.apple.com/documentation/appstoreserverapi/get-refund-history
        router.get("/inApps/v2/refund/lookup/:tid") { request, context in
            try await answer(request) {
                let revision = try AppStoreServerAPIRequests.Position(revision: request.queryValue("revision"))
                let stored = try await transaction(context)
                let refunded = try await accountTransactions(stored.accountID).compactMap { entry -> (position: AppStoreServerAPIRequests.Position, item: StoredTransaction)? in
                    guard let revoked = entry.transaction.revocationDate else { return nil }
                    return (AppStoreServerAPIRequests.Position(milliseconds: UTCTimestamp.milliseconds(since1970: revoked), id: entry.transaction.id), entry)
                }
                .sorted { $0.position.precedes($1.position) }
                let page = AppStoreServerAPIRequests.page(refunded, after: revision, descending: false, pageSize: Self.pageSize)
                struct Body: Encodable {
                    var signedTransactions: [String]
                    var revision: String
                    var hasMore: Bool
                }
                return JSONBody.response(Body(signedTransactions: page.items.map(Self.signed), revision: page.revision, hasMore: page.hasMore))
            }
        }
        // Send Consumption Information V1:
        // https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information-v1
        router.put("/inApps/v1/transactions/consumption/:tid") { request, context in
            try await answer(request) {
                let body = try AppStoreServerAPIRequests.object(request.body)
                let stored = try await transaction(context)
                if let type = stored.transaction.productType, type != .consumable { throw AppStoreServerAPIError.notConsumable }
                try AppStoreServerAPIRequests.checkConsumptionV1(body)
                let json = String(decoding: request.body, as: UTF8.self)
                try await service.recordConsumption(json, transactionID: stored.transaction.id)
                try await service.consumptionInformationReceived(transactionID: stored.transaction.id, json: json)
                return HTTPResponse(status: .accepted)
            }
        }
        // Send Consumption Information (v2): https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information
        router.put("/inApps/v2/transactions/consumption/:tid") { request, context in
            try await answer(request) {
                let body = try AppStoreServerAPIRequests.object(request.body)
                let stored = try await transaction(context)
                try AppStoreServerAPIRequests.checkConsumption(body)
                let json = String(decoding: request.body, as: UTF8.self)
                try await service.recordConsumption(json, transactionID: stored.transaction.id)
                try await service.consumptionInformationReceived(transactionID: stored.transaction.id, json: json)
                return HTTPResponse(status: .accepted)
            }
        }
    }

    /// Checks the bearer token, then runs `handler`; an ``AppStoreServerAPIError`` or a refused token is answered in
    /// Apple's shape, anything else (a storage failure) is thrown to the middlewares.
    func answer(_ request: HTTPRequest, _ handler: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            try AppStoreServerAPIToken.check(request.fields["Authorization"], bundleID: service.appBundleID, now: now())
            return try await handler()
        } catch let refusal as AppStoreServerAPIToken.Refusal {
            return refusal.response
        } catch let error as AppStoreServerAPIError {
            return error.response
        }
    }

    /// The purchased transaction the path's `:tid` names.
    /// - Throws: `InvalidTransactionIdError` for an ID that is not a number, `TransactionIdNotFoundError` for one the
    ///   store does not keep as a purchased transaction (an Ask to Buy request and an interrupted purchase are none).
    func transaction(_ context: DashboardContext) async throws -> StoredTransaction {
        // Digits only: `UInt64("+5")` would read a sign Apple's identifiers never carry.
        guard let text = context.parameters["tid"], text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let id = UInt64(text) else {
            throw AppStoreServerAPIError.invalidTransactionID
        }
        guard let stored = try await service.records.transaction(withID: id), stored.status == .purchased else {
            throw AppStoreServerAPIError.transactionIDNotFound
        }
        return stored
    }

    /// Every purchased transaction of the Apple Account, finished consumables included (Apple: Get Transaction
    /// History v2 "returns … consumable in-app purchases", whatever `SKIncludeConsumableInAppPurchaseHistory` says
    /// on the device).
    func accountTransactions(_ accountID: String) async throws -> [StoredTransaction] {
        try await service.records.transactions(accountID: accountID, limit: 100_000).filter { $0.status == .purchased }
    }

    /// The signed form of a transaction: its unsecured JWS.
    static func signed(_ stored: StoredTransaction) -> String { APIModels.JWSTransactionPayload(stored.transaction).jwsRepresentation }

    /// A transaction's place in the history: Apple sorts it "by … recently modified date", here `signedDate` (set again
    /// by a refund), then its ID.
    static func modified(_ stored: StoredTransaction) -> AppStoreServerAPIRequests.Position {
        AppStoreServerAPIRequests.Position(milliseconds: UTCTimestamp.milliseconds(since1970: stored.transaction.signedDate), id: stored.transaction.id)
    }
}
