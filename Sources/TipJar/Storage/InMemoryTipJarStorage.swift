import Foundation
import Synchronization

/// A ``TipJarStorage`` in memory, with the guarantees of the SQLite one (`SQLiteTipJarStorage`) and none of its
/// file: every method is one unit of work under one lock, so it happens whole or throws and changes nothing;
/// ``record(_:)`` counts a transaction at most once per install and adds a heart only up to
/// ``Install/maximumHearts`` (README "Domain rules" 6); transaction IDs and install IDs are unique. For tests of
/// the domain rules and for runs that need no file; everything is gone when the value is.
public final class InMemoryTipJarStorage: TipJarStorage {
    /// Why a unit of work was refused; nothing was changed.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        /// An install with this ID is already saved.
        case duplicateInstallID(String)
        /// A transaction with this ID is already saved.
        case duplicateTransactionID(UInt64)
        /// No install has this ID (a ledger row must belong to a saved install).
        case unknownInstall(String)
        /// An install's hearts must be 0...``Install/maximumHearts``.
        case heartsOutOfRange(Int)

        /// The refusal in English.
        public var description: String {
            switch self {
            case .duplicateInstallID(let id): "an install with ID \(id) already exists"
            case .duplicateTransactionID(let id): "a transaction with ID \(id) already exists"
            case .unknownInstall(let id): "no install has ID \(id)"
            case .heartsOutOfRange(let hearts): "\(hearts) hearts is outside 0...\(Install.maximumHearts)"
            }
        }
    }

    /// Everything stored, changed only under ``state``'s lock.
    struct State {
        /// The installs; each one's `storefront` is read from ``accountStorefronts`` (``installWithAccount(_:)``).
        var installs: [String: Install] = [:]
        /// Each Apple Account's storefront, by account ID (the SQLite table `accounts`): the storefront belongs to
        /// the account, so every install of it reports this one.
        var accountStorefronts: [String: String] = [:]
        var transactions: [UInt64: StoredTransaction] = [:]
        /// The (install, transaction) pairs counted, by install (the SQLite table `counted_transactions`).
        var counted: [String: Set<UInt64>] = [:]
        /// Each install's ledger, oldest first, as recorded (quantity and token are read from the transaction).
        var ledgers: [String: [Delivery]] = [:]
        var settings: StoreSettings?
        /// Refund requests by transaction ID (the SQLite table `refund_requests`).
        var refundRequests: [UInt64: RefundRequest] = [:]

        /// `install` reporting its account's storefront.
        func installWithAccount(_ install: Install) -> Install {
            var install = install
            if let storefront = accountStorefronts[install.accountID] { install.storefront = storefront }
            return install
        }

        /// The install with `id`, reporting its account's storefront, or `nil`.
        func install(withID id: String) -> Install? { installs[id].map(installWithAccount) }
    }

    let state = Mutex(State())

    /// Bumped after every change (``write(_:)``).
    public let commits = CommitCounter()

    /// Creates an empty storage (a new database).
    public init() {}

    /// Runs one unit of work that may change the state, under the lock, and counts its commit once the lock is
    /// released (a unit that throws changed nothing and counts none). Every change goes through here.
    func write<T: Sendable>(_ body: (inout sending State) throws -> sending T) rethrows -> T {
        let result = try state.withLock(body)
        commits.committed()
        return result
    }

    // MARK: Installs

    /// `TipJarStorage.insert(_:)` for an install: a new account takes `install.storefront`, a known one keeps its own.
    /// - Returns: the install as saved, with its account's storefront.
    /// - Throws: ``Refusal`` for a duplicate ID or hearts out of range (nothing kept).
    @discardableResult
    public func insert(_ install: Install) throws -> Install {
        guard (0...Install.maximumHearts).contains(install.hearts) else { throw Refusal.heartsOutOfRange(install.hearts) }
        return try write { state in
            guard state.installs[install.id] == nil else { throw Refusal.duplicateInstallID(install.id) }
            if state.accountStorefronts[install.accountID] == nil { state.accountStorefronts[install.accountID] = install.storefront }
            state.installs[install.id] = install
            return state.installWithAccount(install)
        }
    }

    /// `TipJarStorage.install(withID:)`.
    public func install(withID id: String) -> Install? {
        state.withLock { $0.install(withID: id) }
    }

    /// `TipJarStorage.installs(matching:)`, as the SQLite query answers it: newest first (creation time, then ID,
    /// both descending); a search of hex digits and dashes is an ID prefix (lowercased), any other text a label
    /// match ignoring ASCII case (SQLite's `lower()`, https://www.sqlite.org/lang_corefunc.html#lower).
    /// `TipJarStorage.runningInstallIDs(accountID:except:)`.
    public func runningInstallIDs(accountID: String, except installID: String) -> [String] {
        state.withLock { state in
            state.installs.values.map(state.installWithAccount).filter { $0.accountID == accountID && $0.isRunning && $0.id != installID }.map(\.id).sorted()
        }
    }

    public func installs(matching query: InstallQuery) -> InstallPage {
        let search = query.search.trimmingCharacters(in: .whitespaces)
        let matches: (Install) -> Bool
        if search.isEmpty {
            matches = { _ in true }
        } else if search.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
            let prefix = search.lowercased()
            matches = { $0.id.hasPrefix(prefix) }
        } else {
            let needle = Self.asciiLowercased(search)
            matches = { Self.asciiLowercased($0.label).contains(needle) }
        }
        let all = state.withLock { state in state.installs.values.map(state.installWithAccount) }
            .filter { install in
                matches(install) && query.hearts.map { install.hearts == $0 } != false
                    && query.accountID.map { install.accountID == $0 } != false
            }
            .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
        let page = Self.page(all, page: query.page, pageSize: query.pageSize)
        return InstallPage(installs: page.rows, hasMore: page.hasMore)
    }

    /// `TipJarStorage.setRunning(_:installID:)`; an unknown ID changes nothing.
    public func setRunning(_ isRunning: Bool, installID: String) {
        write { $0.installs[installID]?.isRunning = isRunning }
    }

    /// `TipJarStorage.setLabel(_:installID:)`; an unknown ID changes nothing.
    public func setLabel(_ label: String, installID: String) {
        write { $0.installs[installID]?.label = label }
    }

    /// `TipJarStorage.setStorefront(_:accountID:)`; an unknown account changes nothing.
    public func setStorefront(_ countryCode: String, accountID: String) -> String? {
        write { state in
            guard let before = state.accountStorefronts[accountID], before != countryCode else { return nil }
            state.accountStorefronts[accountID] = countryCode
            return before
        }
    }

    /// `TipJarStorage.migrateLegacyFlag(installID:)`: clears the flag and, with zero hearts, sets one, at most once.
    public func migrateLegacyFlag(installID: String) -> Bool {
        write { state in
            guard var install = state.installs[installID], install.legacyHasTipped else { return false }
            install.legacyHasTipped = false
            if install.hearts == 0 { install.hearts = 1 }
            state.installs[installID] = install
            return true
        }
    }

    // MARK: Store

    /// `TipJarStorage.storeSettings()`.
    public func storeSettings() -> StoreSettings? {
        state.withLock { $0.settings }
    }

    /// `TipJarStorage.save(_:)`.
    public func save(_ settings: StoreSettings) {
        write { $0.settings = settings }
    }

    // MARK: Helpers

    /// `text` with A–Z lowercased and every other character kept, as SQLite's built-in `lower()` does.
    static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar(UInt8($0.value + 32)) : $0 }))
    }

    /// The rows of 1-based `page` of `pageSize` rows, and whether a row follows them.
    static func page<Row>(_ rows: [Row], page: Int, pageSize: Int) -> (rows: [Row], hasMore: Bool) {
        let start = min(rows.count, (page - 1) * pageSize)
        let end = min(rows.count, start + pageSize)
        return (Array(rows[start..<end]), rows.count > end)
    }

    /// The first `limit` of `rows`; a negative limit is no limit, as SQLite's `LIMIT`.
    static func prefix<Row>(_ rows: [Row], limit: Int) -> [Row] {
        limit < 0 ? rows : Array(rows.prefix(limit))
    }
}
