extension TipJarSchema {
    /// `v20-install-filter-through-accounts`: a purchase writes one index page fewer. `transactions_by_install` put each
    /// purchase's key on a page of its install's own, which the other purchases of a group commit cannot share: a page
    /// written to the WAL, and later to the database file, per purchase. The install filter of
    /// `SQLiteTipJarStorage.transactions(matching:)` now reads the account's index instead, which a purchase writes
    /// anyway, and `install_accounts` says which accounts' ranges hold an install's transactions: every pair the
    /// transactions table ever held, kept when transactions or the install are deleted (a deleted install's transactions
    /// stay, and stay listed by install), added by triggers on every insert and on any change of either column.
    /// `INSERT OR IGNORE` finds the pair of an install's first transaction on its later ones and writes nothing
    /// (https://www.sqlite.org/lang_conflict.html), so a purchase only reads that table.
    ///
    /// `transactions_by_account` gains `install_id` as its last column: the keys keep the order the account's pages are
    /// read in (newest first by `id`), and an account shared by several installs is filtered by install inside the index,
    /// without reading the table's row of every transaction the other installs made.
    public static let v20 = """
        CREATE TABLE install_accounts (
            install_id TEXT NOT NULL,
            account_id TEXT NOT NULL,
            PRIMARY KEY (install_id, account_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO install_accounts (install_id, account_id) SELECT install_id, account_id FROM transactions;
        CREATE TRIGGER install_accounts_on_insert AFTER INSERT ON transactions
        BEGIN
            INSERT OR IGNORE INTO install_accounts (install_id, account_id) VALUES (NEW.install_id, NEW.account_id);
        END;
        CREATE TRIGGER install_accounts_on_update AFTER UPDATE OF install_id, account_id ON transactions
        BEGIN
            INSERT OR IGNORE INTO install_accounts (install_id, account_id) VALUES (NEW.install_id, NEW.account_id);
        END;
        DROP INDEX transactions_by_install;
        DROP INDEX transactions_by_account;
        CREATE INDEX transactions_by_account ON transactions (account_id, id, install_id);
        """
}
