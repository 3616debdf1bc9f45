extension TipJarSchema {
    /// `v20-install-filter-through-accounts`: a purchase on an account no other install uses writes no page keyed by its
    /// install. `transactions_by_install` put every purchase's key on a page of its install's own, which the other
    /// purchases of a group commit cannot share: a page in the WAL, the sync and the checkpoint per purchase. The install
    /// filter of `SQLiteTipJarStorage.transactions(matching:)` now finds an install's transactions two ways:
    ///
    /// - under an account only that install uses, the account's range of `transactions_by_account`, which a purchase
    ///   writes anyway, holds the install's transactions and nothing else;
    /// - under an account several installs use (an Apple Account on two devices), `shared_account_transactions` lists
    ///   them by install, as the dropped index did, so a page of one install's is a range however many the others made.
    ///
    /// `install_accounts` files each account an install's transactions are under. One trigger keeps both, on every
    /// insert, in this order: the first transaction of an install under an account another install already uses lists
    /// every transaction of that account by install (once for each install that joins it: the gate, a one-row subquery
    /// with `LIMIT` in a `CROSS JOIN`, keeps SQLite from walking the account's rows on any other insert,
    /// https://www.sqlite.org/optoverview.html#manual_control_of_query_plans_using_cross_join); a later one under such
    /// an account is listed alone; then the pair is filed. `INSERT OR IGNORE` writes nothing for a pair or key already
    /// there (https://www.sqlite.org/lang_conflict.html), so a purchase on an account of its own only reads both tables.
    /// Rows stay when transactions or installs are deleted: a deleted install's transactions stay with the store and stay
    /// listed by install. No statement moves a transaction to another install or account.
    public static let v20 = """
        CREATE TABLE install_accounts (
            account_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            PRIMARY KEY (account_id, install_id)
        ) WITHOUT ROWID;
        CREATE INDEX install_accounts_by_install ON install_accounts (install_id);
        CREATE TABLE shared_account_transactions (
            install_id TEXT NOT NULL,
            transaction_id INTEGER NOT NULL,
            PRIMARY KEY (install_id, transaction_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO install_accounts (account_id, install_id) SELECT account_id, install_id FROM transactions;
        INSERT INTO shared_account_transactions (install_id, transaction_id)
            SELECT install_id, id FROM transactions
            WHERE account_id IN (SELECT account_id FROM install_accounts GROUP BY account_id HAVING count(*) > 1);
        CREATE TRIGGER file_transaction_by_install AFTER INSERT ON transactions
        BEGIN
            INSERT OR IGNORE INTO shared_account_transactions (install_id, transaction_id)
                SELECT t.install_id, t.id
                FROM (SELECT 1 FROM install_accounts
                      WHERE account_id = NEW.account_id AND install_id <> NEW.install_id
                        AND NOT EXISTS (SELECT 1 FROM install_accounts WHERE account_id = NEW.account_id AND install_id = NEW.install_id)
                      LIMIT 1) AS joining
                CROSS JOIN transactions AS t
                WHERE t.account_id = NEW.account_id;
            INSERT OR IGNORE INTO shared_account_transactions (install_id, transaction_id)
                SELECT NEW.install_id, NEW.id
                WHERE EXISTS (SELECT 1 FROM install_accounts WHERE account_id = NEW.account_id AND install_id <> NEW.install_id);
            INSERT OR IGNORE INTO install_accounts (account_id, install_id) VALUES (NEW.account_id, NEW.install_id);
        END;
        DROP INDEX transactions_by_install;
        """
}
