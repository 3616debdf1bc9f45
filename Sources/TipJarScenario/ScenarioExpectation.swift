import Foundation

/// What must hold after a step (the step's `"expect"` object). Every member is optional; a step
/// with no `status` or `statuses` still expects every answer to be 2xx.
public struct ScenarioExpectation: Sendable, Equatable {
    /// The HTTP status of the step's request.
    public var status: Int?
    /// The statuses of the step's concurrent requests (`tabs` > 1), in any order.
    public var statuses: [Int]?
    /// The install's hearts after the step.
    public var hearts: Int?
    /// Whether the install's app runs after the step.
    public var running: Bool?
    /// `Product.PurchaseResult` as the API names it: `purchased`, `unverified`, `cancelled`, `pending`, `failed`.
    public var outcome: String?
    /// The alert's error name (`errorName` of a purchase, `storeKitError` of a refused restore);
    /// `.null` expects no error.
    public var errorName: JSONValue?
    /// The ledger rows the step adds to the install's ledger, oldest first (exactly these).
    public var ledger: [LedgerRow]?
    /// The tip jar's state after the step (`GET /api/installs/{id}/offers`): `ready`, `unavailable`.
    public var offers: String?
    /// How many Ask to Buy purchases of this install wait for approval after the step.
    public var pending: Int?

    /// One expected ledger row; absent members are not compared.
    public struct LedgerRow: Sendable, Equatable {
        /// `purchase`, `listener`, `launch` or `restore`.
        public var path: String?
        /// `counted`, `duplicate`, `revoked`, `unknownProduct` or `unverified`.
        public var outcome: String?
        /// Whether the handler called `finish()`.
        public var finished: Bool?
        /// The product.
        public var productID: String?
        /// The name (an `"as"` field) of the transaction this row must carry.
        public var transaction: String?

        /// Creates a row expectation.
        public init(path: String? = nil, outcome: String? = nil, finished: Bool? = nil, productID: String? = nil, transaction: String? = nil) {
            self.path = path
            self.outcome = outcome
            self.finished = finished
            self.productID = productID
            self.transaction = transaction
        }
    }

    /// Creates an expectation (empty: only a 2xx status).
    public init(
        status: Int? = nil, statuses: [Int]? = nil, hearts: Int? = nil, running: Bool? = nil, outcome: String? = nil,
        errorName: JSONValue? = nil, ledger: [LedgerRow]? = nil, offers: String? = nil, pending: Int? = nil
    ) {
        self.status = status
        self.statuses = statuses
        self.hearts = hearts
        self.running = running
        self.outcome = outcome
        self.errorName = errorName
        self.ledger = ledger
        self.offers = offers
        self.pending = pending
    }

    static let fields: Set<String> = ["status", "statuses", "hearts", "running", "outcome", "errorName", "ledger", "offers", "pending"]
    /// The members a `wait` step's `until` may name: facts about the install that change over time.
    static let conditionFields: Set<String> = ["hearts", "running", "offers", "pending"]
    static let outcomes = ["purchased", "unverified", "cancelled", "pending", "failed", "success", "userCancelled"]
    static let offerStates = ["ready", "unavailable", "loading"]
    static let paths = ["purchase", "listener", "launch", "restore", "otherDevice"]
    static let recordOutcomes = ["counted", "duplicate", "revoked", "unknownProduct", "unverified"]

    init(node: ScenarioNode, names: ScenarioNames, allowing allowed: Set<String> = Self.fields) throws(ScenarioError) {
        let members = try node.object(allowing: allowed)
        self.init()
        status = try members["status"]?.integer(in: 100...599)
        if let node = members["statuses"] {
            statuses = try node.elements().map { element throws(ScenarioError) in try element.integer(in: 100...599) }
        }
        hearts = try members["hearts"]?.integer(in: 0...5)
        running = try members["running"]?.bool()
        outcome = try members["outcome"]?.oneOf(Self.outcomes)
        if let node = members["errorName"] {
            if node.value != .null { _ = try node.string(maximumLength: 100) }
            errorName = node.value
        }
        offers = try members["offers"]?.oneOf(Self.offerStates)
        pending = try members["pending"]?.integer(in: 0...10_000)
        if let node = members["ledger"] {
            ledger = try node.elements().map { row throws(ScenarioError) in
                let fields = try row.object(allowing: ["path", "outcome", "finished", "productID", "transaction"])
                if let reference = fields["transaction"] {
                    let name = try reference.string(maximumLength: 100)
                    guard names.transactions.contains(name) else { throw reference.error("no transaction named \"\(ScenarioNode.shown(name))\" above") }
                }
                return LedgerRow(
                    path: try fields["path"]?.oneOf(Self.paths), outcome: try fields["outcome"]?.oneOf(Self.recordOutcomes),
                    finished: try fields["finished"]?.bool(), productID: try fields["productID"]?.string(),
                    transaction: try fields["transaction"]?.string())
            }
        }
    }

    /// Whether the expectation needs the install's state (hearts, running), its offers, its
    /// pending purchases or its ledger after the step.
    var needsInstall: Bool { hearts != nil || running != nil }

    /// The facts this expectation checks, for the run's output: `["hearts 1", "2 ledger rows"]`.
    var checkedFacts: [String] {
        var facts: [String] = []
        if let outcome { facts.append(outcome) }
        if let errorName { facts.append("errorName \(errorName.stringValue ?? "none")") }
        if let hearts { facts.append("hearts \(hearts)") }
        if let running { facts.append(running ? "running" : "stopped") }
        if let pending { facts.append("\(pending) pending") }
        if let offers { facts.append("offers \(offers)") }
        if let ledger { facts.append("\(ledger.count) ledger row\(ledger.count == 1 ? "" : "s")") }
        return facts
    }

    /// The JSON form of this expectation, as a scenario file writes it (only the members set).
    public var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let status { object["status"] = .number(Double(status)) }
        if let statuses { object["statuses"] = .array(statuses.map { .number(Double($0)) }) }
        if let hearts { object["hearts"] = .number(Double(hearts)) }
        if let running { object["running"] = .bool(running) }
        if let outcome { object["outcome"] = .string(outcome) }
        if let errorName { object["errorName"] = errorName }
        if let offers { object["offers"] = .string(offers) }
        if let pending { object["pending"] = .number(Double(pending)) }
        if let ledger {
            object["ledger"] = .array(
                ledger.map { row in
                    var fields: [String: JSONValue] = [:]
                    if let path = row.path { fields["path"] = .string(path) }
                    if let outcome = row.outcome { fields["outcome"] = .string(outcome) }
                    if let finished = row.finished { fields["finished"] = .bool(finished) }
                    if let productID = row.productID { fields["productID"] = .string(productID) }
                    if let transaction = row.transaction { fields["transaction"] = .string(transaction) }
                    return .object(fields)
                })
        }
        return .object(object)
    }
}
