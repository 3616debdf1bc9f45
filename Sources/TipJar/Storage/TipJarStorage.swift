import Foundation

/// Persistence the core needs, implemented by `TipJarSQLite` (Sources/README.md, "Targets": "persistence behind
/// `TipJarStorage`"). Every method is one atomic unit of work: it either happens whole or throws.
///
/// A store that cannot work now throws ``StorageUnavailable`` or an error of its own that conforms to
/// ``StorageFailure`` (the SQLite adapter's `DatabaseError` does); the dashboard answers those with a 503.
///
/// Every method is `nonisolated(nonsending)` (SE-0461): it runs on the caller's actor until it waits for its
/// connection, so a call from ``TipJarService`` costs no hop off the actor and back.
public protocol TipJarStorage: Sendable {
    /// What each committed unit of work touched (``ChangeLog``): every write reports its keys after its commit,
    /// before its caller is answered, in every implementation. Whatever keeps what it read keys on it. The keys each
    /// write reports are rules of their own (`Tests/TipJarStorageRules/ChangeKeyRules.swift`).
    var changeLog: ChangeLog { get }

    /// Saves a new install, signed in with its Apple Account. The storefront belongs to the account
    /// (https://developer.apple.com/documentation/storekit/storefront): `install.storefront` becomes the account's
    /// storefront only when the account is new; an account already known keeps its own, which the saved install
    /// then reports. The check and the insert are one unit of work.
    /// - Returns: the install as saved (with its account's storefront).
    /// - Throws: when the ID exists or the store fails.
    @discardableResult
    nonisolated(nonsending) func insert(_ install: Install) async throws -> Install
    /// The install with `id`, or `nil`.
    nonisolated(nonsending) func install(withID id: String) async throws -> Install?
    /// A page of installs, newest first.
    nonisolated(nonsending) func installs(matching query: InstallQuery) async throws -> InstallPage
    /// The IDs of the running installs signed into `accountID`, but `installID`: a read by key (the account's index),
    /// on every purchase, so it must cost no more than one.
    nonisolated(nonsending) func runningInstallIDs(accountID: String, except installID: String) async throws -> [String]
    /// Marks an install running or stopped.
    nonisolated(nonsending) func setRunning(_ isRunning: Bool, installID: String) async throws
    /// Changes an install's label.
    nonisolated(nonsending) func setLabel(_ label: String, installID: String) async throws
    /// Changes an Apple Account's storefront (an alpha-3 code of ``Storefront/all``): every install signed in with
    /// the account reports it from then on; transactions keep the storefront they were made in.
    /// - Returns: the account's storefront before the change, or `nil` when nothing changed (the account already
    ///   had this storefront, or no install ever signed in with it), read and changed in one unit of work.
    nonisolated(nonsending) func setStorefront(_ countryCode: String, accountID: String) async throws -> String?
    /// Launch-time migration of the old "has tipped" boolean (README "Domain rules": Migration), atomically: when
    /// the flag is set, clear it and, if hearts are still zero, set them to one.
    /// - Returns: `true` when the flag was set (the migration ran now), `false` otherwise.
    nonisolated(nonsending) func migrateLegacyFlag(installID: String) async throws -> Bool

    /// The saved store settings, or `nil` on a new database.
    nonisolated(nonsending) func storeSettings() async throws -> StoreSettings?
    /// Saves the store settings.
    nonisolated(nonsending) func save(_ settings: StoreSettings) async throws

    /// Saves a transaction the store issued; returns after the commit.
    nonisolated(nonsending) func insert(_ transaction: StoredTransaction) async throws
    /// The stored transaction with `id`, or `nil`.
    nonisolated(nonsending) func transaction(withID id: UInt64) async throws -> StoredTransaction?
    /// The stored transactions of `ids` that exist, in one read (one snapshot), in the order of `ids`.
    nonisolated(nonsending) func transactions(withIDs ids: [UInt64]) async throws -> [StoredTransaction]
    /// Moves a stored transaction to `transaction`'s state (status, purchase and signed dates, revocation, finished
    /// flag, an Ask to Buy request's `requestedAgain`, `settledAs`, `consumptionInfo`) only while it is still in the state `expected` was
    /// read in: the same status (an interrupted purchase counts as its own status), revocation and `requestedAgain`. The check and the change are one statement, so of actions
    /// racing from one state (two refunds, an approve against a decline) exactly one wins.
    /// - Returns: `false` when the transaction is gone or no longer in `expected`'s state: nothing changed.
    nonisolated(nonsending) func update(_ transaction: StoredTransaction, from expected: StoredTransaction) async throws -> Bool
    /// Settles a record (an Ask to Buy request being approved, an interrupted purchase being resolved): moves it to
    /// `settled`'s state (``StoredTransaction/Status/approved`` or `.resolved`, with ``StoredTransaction/settledAs``)
    /// only while it is still in the state `expected` was read in (as ``update(_:from:)`` checks it), and saves
    /// `issued`, the new transaction, in the same write: of an approve racing a decline exactly one wins, and a record
    /// is never settled without its transaction.
    /// - Returns: `false` when the record is gone or no longer in `expected`'s state: nothing changed.
    nonisolated(nonsending) func settle(_ expected: StoredTransaction, as settled: StoredTransaction, issuing issued: StoredTransaction) async throws -> Bool
    /// Ask to Buy requests waiting for a decision, oldest first.
    nonisolated(nonsending) func pendingTransactions() async throws -> [StoredTransaction]
    /// Purchased, unfinished transactions of an account, oldest first.
    nonisolated(nonsending) func unfinishedTransactions(accountID: String) async throws -> [StoredTransaction]
    /// The account's oldest purchased, unfinished and unrevoked transaction of `productID`, or `nil`: what a purchase of
    /// that product answers with (``SimulatedStore``'s unfinished-transaction rule). Read on every purchase, so a
    /// storage answers it without reading the others.
    nonisolated(nonsending) func firstUnfinishedTransaction(accountID: String, productID: String) async throws -> StoredTransaction?
    /// Every transaction, newest first, at most `limit`; only rows ``StoredTransaction/isListed`` (no Ask to Buy request).
    nonisolated(nonsending) func recentTransactions(limit: Int) async throws -> [StoredTransaction]
    /// The largest transaction or Ask to Buy request ID issued so far (0 on a new database; the two share one
    /// numbering, so a request's ID is never a transaction's), counting the IDs installs still
    /// count after the store forgot the transaction, so that a new transaction never collides with one counted.
    nonisolated(nonsending) func largestTransactionID() async throws -> UInt64
    /// A page of transactions, newest first (by transaction ID): rows ``StoredTransaction/isListed``, or those of
    /// `query.status` when it names one.
    nonisolated(nonsending) func transactions(matching query: TransactionQuery) async throws -> TransactionPage
    /// Every transaction of an Apple Account, newest first, at most `limit`; only rows ``StoredTransaction/isListed``.
    nonisolated(nonsending) func transactions(accountID: String, limit: Int) async throws -> [StoredTransaction]
    /// `SKTestSession.clearTransactions()`: the store forgets every transaction and every refund request. Installs keep their hearts
    /// and ledgers (the app's own storage).
    /// - Returns: how many transactions were deleted.
    nonisolated(nonsending) func deleteAllTransactions() async throws -> Int
    /// `SKTestSession.deleteTransaction(identifier:)`: the store forgets one transaction and its refund request.
    /// - Returns: `false` when no transaction has that ID.
    nonisolated(nonsending) func deleteTransaction(withID id: UInt64) async throws -> Bool
    /// Saves a refund request the App Store received, only if none exists for its transaction, whatever that one's
    /// state: the check and the insert are one statement, so of two requests for one transaction exactly one is saved.
    /// - Returns: `false` when a request for the transaction exists (nothing changed).
    nonisolated(nonsending) func insert(_ request: RefundRequest) async throws -> Bool
    /// The refund request for a transaction, or `nil`.
    nonisolated(nonsending) func refundRequest(transactionID: UInt64) async throws -> RefundRequest?
    /// Refund requests, newest first, at most `limit`.
    nonisolated(nonsending) func refundRequests(limit: Int) async throws -> [RefundRequest]
    /// Moves a refund request to `request`'s state and decision date only while it is still in `expected`'s state:
    /// of an approve racing a decline exactly one wins.
    /// - Returns: `false` when it is gone or no longer in `expected`'s state (nothing changed).
    nonisolated(nonsending) func update(_ request: RefundRequest, from expected: RefundRequest) async throws -> Bool
    /// The app is deleted from the device: the install, its hearts, its ledger and its counted keys go, in
    /// one unit of work. Its transactions stay with the store, under its account.
    /// - Returns: `false` when no install has that ID.
    nonisolated(nonsending) func deleteInstall(withID id: String) async throws -> Bool

    /// Records one delivery in the ledger, atomically with its effects (README "Domain rules": Recording):
    /// when `delivery.outcome` is `.counted`, the (install, transaction) pair is inserted with
    /// `ON CONFLICT DO NOTHING`; if it was already there the outcome becomes `.duplicate`, else the
    /// install gains one heart up to `Install.maximumHearts`. When `delivery.finished` is true the
    /// transaction is marked finished in the same unit of work.
    /// - Returns: The final outcome and the install's hearts after the commit.
    nonisolated(nonsending) func record(_ delivery: Delivery) async throws -> (outcome: RecordOutcome, hearts: Int)
    /// A successful purchase, as StoreKit runs it: the store issues `transaction` (saves it, purchased),
    /// then the app's transaction handler records `delivery` of it as ``record(_:)`` does, in that order,
    /// in one operation that returns once the record committed.
    ///
    /// The issue commits before the record or together with it, never after, and a failed record does
    /// not undo it: a fault between the two (the record fails, or the process dies) leaves the
    /// transaction charged, unfinished and unrecorded, and the account's next launch delivers it
    /// (`Transaction.unfinished`, <https://developer.apple.com/documentation/storekit/transaction/unfinished>).
    /// An issue that fails keeps and records nothing.
    /// - Returns: The final outcome and the install's hearts after the record's commit, and the account's other
    ///   running installs as of that commit (``runningInstallIDs(accountID:except:)``), which `Transaction.updates`
    ///   reaches next, so the purchase needs no read of its own for them.
    /// - Throws: the issue's error (nothing kept), or the record's error (the issued transaction kept).
    nonisolated(nonsending) func issue(
        _ transaction: StoredTransaction, thenRecord delivery: Delivery
    ) async throws -> (outcome: RecordOutcome, hearts: Int, otherRunningInstallIDs: [String])
    /// An install's ledger, oldest first, the last `limit` rows.
    nonisolated(nonsending) func ledger(installID: String, limit: Int) async throws -> [Delivery]
    /// An install and the last `limit` rows of its ledger from one consistent snapshot (so the
    /// hearts shown always agree with the ledger beside them), or `nil` for an unknown ID.
    nonisolated(nonsending) func installWithLedger(id: String, limit: Int) async throws -> (install: Install, ledger: [Delivery])?
    /// Totals for the overview page.
    nonisolated(nonsending) func overview() async throws -> Overview
}

/// Which installs to list: paginated, with search by ID prefix or label and a hearts filter.
public struct InstallQuery: Sendable, Equatable {
    /// Text that the install ID starts with, or that the label contains; empty for all.
    public var search: String
    /// Only installs with exactly this many hearts, or `nil` for all.
    public var hearts: Int?
    /// 1-based page number, at most `InstallQuery.maximumPage`.
    public var page: Int
    /// Rows per page (1...200).
    public var pageSize: Int
    /// Only installs signed in with this Apple Account, or `nil` for all.
    public var accountID: String?

    /// The deepest page a query may ask for; with at most 200 rows a page, the row offset stays far
    /// inside 64-bit arithmetic whatever number a client sends.
    public static let maximumPage = 1_000_000

    /// Creates a query; `page` is clamped to 1...`maximumPage` and `pageSize` to 1...200.
    public init(search: String = "", hearts: Int? = nil, page: Int = 1, pageSize: Int = 50, accountID: String? = nil) {
        self.search = search
        self.accountID = accountID
        self.hearts = hearts
        self.page = min(Self.maximumPage, max(1, page))
        self.pageSize = min(200, max(1, pageSize))
    }
}

/// One page of installs and whether another follows.
public struct InstallPage: Sendable, Equatable {
    /// The installs on this page.
    public var installs: [Install]
    /// Whether there is a next page.
    public var hasMore: Bool

    /// Creates a page.
    public init(installs: [Install], hasMore: Bool) {
        self.installs = installs
        self.hasMore = hasMore
    }
}

/// Totals for `/`.
public struct Overview: Sendable, Equatable {
    /// Number of installs.
    public var installs: Int
    /// Number of counted tips across installs.
    public var tips: Int
    /// Sum of hearts across installs.
    public var hearts: Int

    /// Creates totals.
    public init(installs: Int, tips: Int, hearts: Int) {
        self.installs = installs
        self.tips = tips
        self.hearts = hearts
    }
}

/// One line of an install's timeline: the service's states (`loading` → `ready` / `unavailable`,
/// purchase open / closed), launches, migrations and store actions.
public struct InstallEvent: Sendable, Equatable {
    /// The install, or `nil` for store-wide events.
    public var installID: String?
    /// When it happened (UTC).
    public var at: Date
    /// A short machine-readable kind, e.g. `state.ready`, `purchase.open`, `launch`.
    public var kind: String
    /// A human sentence in English.
    public var detail: String
    /// The event's values for programs (`productID`, `transactionID`, `outcome`, …), so a recorded
    /// scenario need not parse `detail`.
    public var attributes: [String: String]

    /// Creates an event.
    public init(installID: String?, at: Date, kind: String, detail: String, attributes: [String: String] = [:]) {
        self.installID = installID
        self.at = at
        self.kind = kind
        self.detail = detail
        self.attributes = attributes
    }
}
