import SQLiteDatabase

/// The dashboard's schema, as migrations recorded by identifier. Each runs once, in its
/// own transaction with its record; a database that has applied an identifier this list does not
/// know was written by a newer version and is refused unmodified.
///
/// Times are stored as integer milliseconds since 1970-01-01 UTC; transaction IDs (`UInt64`) as
/// SQLite 64-bit integers with the same bit pattern.
public enum TipJarSchema {
    /// `v1-core`: installs, the store's transactions, the ledger, the counted-transaction keys and
    /// the store settings; the first released schema (`Tests/TipJarSQLiteTests/Fixtures/v1.sqlite3`).
    public static let v1 = """
        CREATE TABLE installs (
            id TEXT PRIMARY KEY NOT NULL,
            locale TEXT NOT NULL,
            storefront TEXT NOT NULL,
            account_id TEXT NOT NULL,
            hearts INTEGER NOT NULL DEFAULT 0 CHECK (hearts BETWEEN 0 AND 5),
            legacy_has_tipped INTEGER NOT NULL DEFAULT 0 CHECK (legacy_has_tipped IN (0, 1)),
            is_running INTEGER NOT NULL DEFAULT 0 CHECK (is_running IN (0, 1)),
            created_at_ms INTEGER NOT NULL
        );
        CREATE INDEX installs_by_created ON installs (created_at_ms DESC, id DESC);
        CREATE INDEX installs_by_hearts ON installs (hearts, created_at_ms DESC, id DESC);
        CREATE TABLE transactions (
            id INTEGER PRIMARY KEY NOT NULL,
            product_id TEXT NOT NULL,
            purchase_date_ms INTEGER NOT NULL,
            storefront TEXT NOT NULL,
            account_id TEXT NOT NULL,
            install_id TEXT NOT NULL REFERENCES installs (id),
            status TEXT NOT NULL CHECK (status IN ('pending', 'purchased', 'declined')),
            is_finished INTEGER NOT NULL DEFAULT 0 CHECK (is_finished IN (0, 1)),
            is_external INTEGER NOT NULL DEFAULT 0 CHECK (is_external IN (0, 1)),
            revocation_date_ms INTEGER,
            revocation_reason TEXT CHECK (revocation_reason IN ('developerIssue', 'other'))
        );
        CREATE INDEX transactions_unfinished ON transactions (account_id, id) WHERE status = 'purchased' AND is_finished = 0;
        CREATE INDEX transactions_pending ON transactions (id) WHERE status = 'pending';
        CREATE TABLE counted_transactions (
            install_id TEXT NOT NULL REFERENCES installs (id),
            transaction_id INTEGER NOT NULL,
            PRIMARY KEY (install_id, transaction_id)
        ) WITHOUT ROWID;
        CREATE TABLE deliveries (
            id INTEGER PRIMARY KEY,
            install_id TEXT NOT NULL REFERENCES installs (id),
            transaction_id INTEGER NOT NULL,
            product_id TEXT NOT NULL,
            path TEXT NOT NULL CHECK (path IN ('purchase', 'listener', 'launch', 'restore')),
            outcome TEXT NOT NULL CHECK (outcome IN ('counted', 'duplicate', 'revoked', 'unknownProduct', 'unverified')),
            finished INTEGER NOT NULL CHECK (finished IN (0, 1)),
            at_ms INTEGER NOT NULL
        );
        CREATE INDEX deliveries_by_install ON deliveries (install_id, id);
        CREATE TABLE store_settings (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            json TEXT NOT NULL
        );
        """

    /// `v2-install-labels`: the install's free-text label.
    public static let v2 = """
        ALTER TABLE installs ADD COLUMN label TEXT NOT NULL DEFAULT '';
        """

    /// `v3-counted-by-transaction`: the counted-transaction keys ordered by transaction first.
    /// Transaction IDs only grow, so a purchase's key lands on the table's last page, which the
    /// other purchases of the same group commit share, instead of on a page picked by the install
    /// ID (a random UUID): fewer pages written per commit and per checkpoint. Same uniqueness.
    public static let v3 = """
        CREATE TABLE counted_transactions_by_transaction (
            transaction_id INTEGER NOT NULL,
            install_id TEXT NOT NULL REFERENCES installs (id),
            PRIMARY KEY (transaction_id, install_id)
        ) WITHOUT ROWID;
        INSERT INTO counted_transactions_by_transaction (transaction_id, install_id)
            SELECT transaction_id, install_id FROM counted_transactions;
        DROP TABLE counted_transactions;
        ALTER TABLE counted_transactions_by_transaction RENAME TO counted_transactions;
        """

    /// `v4-transactions-outlive-installs`: the store's transactions no longer reference `installs`, so that
    /// deleting an install (the app deleted from the device) keeps its account's transactions with the store;
    /// indexes for listing by account and by install. SQLite cannot drop a constraint in place, so the table is
    /// rebuilt (https://www.sqlite.org/lang_altertable.html#otheralter); no table references `transactions`.
    public static let v4 = """
        CREATE TABLE transactions_v4 (
            id INTEGER PRIMARY KEY NOT NULL,
            product_id TEXT NOT NULL,
            purchase_date_ms INTEGER NOT NULL,
            storefront TEXT NOT NULL,
            account_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'purchased', 'declined')),
            is_finished INTEGER NOT NULL DEFAULT 0 CHECK (is_finished IN (0, 1)),
            is_external INTEGER NOT NULL DEFAULT 0 CHECK (is_external IN (0, 1)),
            revocation_date_ms INTEGER,
            revocation_reason TEXT CHECK (revocation_reason IN ('developerIssue', 'other'))
        );
        INSERT INTO transactions_v4 SELECT id, product_id, purchase_date_ms, storefront, account_id, install_id, status,
            is_finished, is_external, revocation_date_ms, revocation_reason FROM transactions;
        DROP TABLE transactions;
        ALTER TABLE transactions_v4 RENAME TO transactions;
        CREATE INDEX transactions_unfinished ON transactions (account_id, id) WHERE status = 'purchased' AND is_finished = 0;
        CREATE INDEX transactions_pending ON transactions (id) WHERE status = 'pending';
        CREATE INDEX transactions_by_account ON transactions (account_id, id);
        CREATE INDEX transactions_by_install ON transactions (install_id, id);
        CREATE INDEX installs_by_account ON installs (account_id);
        """

    /// `v5-transaction-fields`: the `Transaction` fields a purchase now carries
    /// (https://developer.apple.com/documentation/storekit/transaction): `purchasedQuantity` (1–10, the
    /// `quantity(_:)` option), `appAccountToken` (a UUID, lower case), `price` (the exact decimal text, never a
    /// float), `currency` (ISO 4217), `productType`, `appBundleID` and `signedDate`. Rows saved before keep
    /// quantity 1 and `NULL` for the others (the API answers `null`; `signedDate` falls back to the purchase
    /// date). `ADD COLUMN` with a constant default rewrites no row (https://www.sqlite.org/lang_altertable.html).
    public static let v5 = """
        ALTER TABLE transactions ADD COLUMN purchased_quantity INTEGER NOT NULL DEFAULT 1 CHECK (purchased_quantity BETWEEN 1 AND 10);
        ALTER TABLE transactions ADD COLUMN app_account_token TEXT;
        ALTER TABLE transactions ADD COLUMN price TEXT;
        ALTER TABLE transactions ADD COLUMN currency TEXT;
        ALTER TABLE transactions ADD COLUMN product_type TEXT;
        ALTER TABLE transactions ADD COLUMN app_bundle_id TEXT;
        ALTER TABLE transactions ADD COLUMN signed_date_ms INTEGER;
        """

    /// `v6-purchase-issues`: an interrupted purchase's transaction (`SKTestTransaction.hasPurchaseIssue`,
    /// https://developer.apple.com/documentation/storekittest/sktesttransaction/haspurchaseissue) is kept as
    /// `status = 'pending'` with `has_purchase_issue = 1`, so the `status` CHECK (which SQLite cannot change in
    /// place) stays; and a ledger row's short reason (`DeliveryNote`), `NULL` for an ordinary delivery. Both are
    /// `ADD COLUMN`s with defaults, so rows written before keep their meaning.
    public static let v6 = """
        ALTER TABLE transactions ADD COLUMN has_purchase_issue INTEGER NOT NULL DEFAULT 0 CHECK (has_purchase_issue IN (0, 1));
        ALTER TABLE deliveries ADD COLUMN note TEXT;
        """

    /// `v7-account-storefronts`: the storefront belongs to the Apple Account, not to the install
    /// (https://developer.apple.com/documentation/storekit/storefront: the storefront is the App Store country of
    /// the customer's account), so every install of one account reads it from `accounts`, one row per account.
    /// The table is filled from the installs saved before; an account whose installs disagree keeps its newest
    /// install's storefront (latest `created_at_ms`, then the larger ID, the order `/installs` lists them in).
    /// `installs.storefront` is then dropped (https://www.sqlite.org/lang_altertable.html#altertabdropcol), so no
    /// second copy can ever disagree; an install is read with its account's row by primary key. Transactions keep
    /// their own `storefront`: each was made in one. Like every migration it runs in one transaction, so a file it
    /// cannot migrate is left as it was.
    public static let v7 = """
        CREATE TABLE accounts (
            account_id TEXT PRIMARY KEY NOT NULL,
            storefront TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO accounts (account_id, storefront)
            SELECT account_id, storefront FROM (
                SELECT account_id, storefront,
                       row_number() OVER (PARTITION BY account_id ORDER BY created_at_ms DESC, id DESC) AS newest
                FROM installs)
            WHERE newest = 1;
        ALTER TABLE installs DROP COLUMN storefront;
        """

    /// `v8-other-devices`: a ledger row's `path` may be `otherDevice`, a transaction the Apple Account made (or had
    /// refunded) on another of its devices, delivered through `Transaction.updates`
    /// (https://developer.apple.com/documentation/storekit/transaction/updates). SQLite cannot change a CHECK in place,
    /// so the table is rebuilt with every row and its index (https://www.sqlite.org/lang_altertable.html#otheralter);
    /// no table references `deliveries`, and row IDs, which keep the ledger's order, are copied.
    public static let v8 = """
        CREATE TABLE deliveries_v8 (
            id INTEGER PRIMARY KEY,
            install_id TEXT NOT NULL REFERENCES installs (id),
            transaction_id INTEGER NOT NULL,
            product_id TEXT NOT NULL,
            path TEXT NOT NULL CHECK (path IN ('purchase', 'listener', 'launch', 'restore', 'otherDevice')),
            outcome TEXT NOT NULL CHECK (outcome IN ('counted', 'duplicate', 'revoked', 'unknownProduct', 'unverified')),
            finished INTEGER NOT NULL CHECK (finished IN (0, 1)),
            at_ms INTEGER NOT NULL,
            note TEXT
        );
        INSERT INTO deliveries_v8 (id, install_id, transaction_id, product_id, path, outcome, finished, at_ms, note)
            SELECT id, install_id, transaction_id, product_id, path, outcome, finished, at_ms, note FROM deliveries;
        DROP TABLE deliveries;
        ALTER TABLE deliveries_v8 RENAME TO deliveries;
        CREATE INDEX deliveries_by_install ON deliveries (install_id, id);
        """

    /// `v9-ask-to-buy-requests`: an Ask to Buy request is not a transaction (Apple issues none until a parent
    /// approves, https://developer.apple.com/documentation/storekit/product/purchaseresult/pending), and duplicate
    /// requests are consolidated into the one waiting, resetting its timer (https://developer.apple.com/forums/thread/706277).
    /// A request keeps its row in `transactions` (`status` `pending` or `declined`, `has_purchase_issue = 0`; its `id`
    /// is the request's, from the same numbering, never a transaction's) and counts in `requested_again` how many
    /// times it was requested again. Approval issues the transaction under a new ID and keeps the request as
    /// `declined` with `settled_as` naming that transaction (so the `status` CHECK, which SQLite cannot change in
    /// place, stays); resolving an interrupted purchase does the same with its record ("Testing an interrupted
    /// purchase", https://developer.apple.com/documentation/storekit/testing-an-interrupted-purchase: a new
    /// transaction arrives). Rows saved before read 0 and `NULL`: nothing settled.
    public static let v9 = """
        ALTER TABLE transactions ADD COLUMN requested_again INTEGER NOT NULL DEFAULT 0 CHECK (requested_again >= 0);
        ALTER TABLE transactions ADD COLUMN settled_as INTEGER;
        """

    /// `v10-revocation-kinds`: what kind of refund revoked a transaction and how much of it
    /// (https://developer.apple.com/documentation/appstoreserverapi/revocationtype,
    /// https://developer.apple.com/documentation/appstoreservernotifications/revocationpercentage, in milliunits of a
    /// percent). Rows refunded before read as a full refund (`REFUND_FULL`, 100,000), the only kind the dashboard
    /// made then; standing rows keep `NULL`.
    public static let v10 = """
        ALTER TABLE transactions ADD COLUMN revocation_type TEXT CHECK (revocation_type IN ('REFUND_FULL', 'REFUND_PRORATED', 'FAMILY_REVOKE'));
        ALTER TABLE transactions ADD COLUMN revocation_percentage INTEGER CHECK (revocation_percentage BETWEEN 0 AND 100000);
        UPDATE transactions SET revocation_type = 'REFUND_FULL', revocation_percentage = 100000 WHERE revocation_date_ms IS NOT NULL;
        """

    /// `v11-environment`: the environment the store issued a transaction in (`Xcode` or `LocalTesting`,
    /// https://developer.apple.com/documentation/appstoreserverapi/environment), stamped at issue as Apple stamps each
    /// signed transaction; rows saved before were all issued as `Xcode`, the only environment there was. And the
    /// consumption information a server sent for it through Send Consumption Information
    /// (https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information), the request body
    /// as JSON, `NULL` until one is sent.
    public static let v11 = """
        ALTER TABLE transactions ADD COLUMN environment TEXT NOT NULL DEFAULT 'Xcode' CHECK (environment IN ('Xcode', 'LocalTesting'));
        ALTER TABLE transactions ADD COLUMN consumption_info TEXT;
        """

    /// `v12-refund-requests`: the refund requests the app sent with `Transaction.beginRefundRequest(in:)`
    /// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn), one per
    /// transaction (its primary key: `duplicateRequest` is thrown for a request "still pending, … previously denied, or
    /// … previously approved", https://developer.apple.com/documentation/storekit/transaction/refundrequesterror), with
    /// the install and account it came from, the customer's reason and its decision. No foreign key: the store may
    /// forget a transaction (`SKTestSession.deleteTransaction(identifier:)`), and its request goes in the same write.
    public static let v12 = """
        CREATE TABLE refund_requests (
            transaction_id INTEGER PRIMARY KEY,
            install_id TEXT NOT NULL,
            account_id TEXT NOT NULL,
            product_id TEXT NOT NULL,
            requested_at_ms INTEGER NOT NULL,
            reason TEXT CHECK (reason IN ('developerIssue', 'other')),
            state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'declined')),
            decided_at_ms INTEGER
        );
        """

    /// `v13-transaction-origin`: how the store issued a transaction when a ledger cannot tell it (`purchaseSheet`: the
    /// purchase sheet was shown and confirmed; `askToBuyApproval`: an approved Ask to Buy request issued it), saved
    /// when it is issued so a transaction's sequence diagram is drawn from what is stored and reads the same after a
    /// restart. Rows saved before keep `NULL` (nothing known).
    public static let v13 = """
        ALTER TABLE transactions ADD COLUMN origin TEXT CHECK (origin IN ('purchaseSheet', 'askToBuyApproval'));
        """

    /// Every migration, in order: its identifier, and what it does inside its transaction.
    public static let migrations: [(identifier: String, migrate: @Sendable (Database) throws -> Void)] = [
        ("v1-core", sql(v1)),
        ("v2-install-labels", sql(v2)),
        ("v3-counted-by-transaction", sql(v3)),
        ("v4-transactions-outlive-installs", sql(v4)),
        ("v5-transaction-fields", sql(v5)),
        ("v6-purchase-issues", sql(v6)),
        ("v7-account-storefronts", sql(v7)),
        ("v8-other-devices", sql(v8)),
        ("v9-ask-to-buy-requests", sql(v9)),
        ("v10-revocation-kinds", sql(v10)),
        ("v11-environment", sql(v11)),
        ("v12-refund-requests", sql(v12)),
        ("v13-transaction-origin", sql(v13)),
        ("v14-notifications", sql(v14)),
        ("v15-notification-attempts-under-way", sql(v15)),
        ("v16-server-api-history", sql(v16)),
        ("v17-notification-keys-indexed-when-set", sql(v17)),
        ("v18-one-time-charges-queued-by-the-sender", sql(v18)),
        ("v19-membership-checks-as-comparisons", v19),
        ("v20-install-filter-through-accounts", sql(v20)),
    ]

    /// A migration that runs `text`, one or more SQL statements.
    static func sql(_ text: String) -> @Sendable (Database) throws -> Void {
        { db in try db.execute(sql: text) }
    }
}
