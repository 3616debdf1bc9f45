extension TipJarSchema {
    /// `v16-server-api-history`: the App Store Server API's reads as index ranges, so a page of a customer's history
    /// costs the same on an account with a million transactions as on one with twenty
    /// (`SQLiteTipJarStorage+ServerAPI.swift`): the purchased transactions of an account by environment and
    /// `signedDate` (Get Transaction History), and the refunded ones by environment and `revocationDate` (Get Refund
    /// History). Rows saved before `signed_date_ms` was kept get their purchase date, which is what they are read as
    /// (`SQLiteTipJarStorage.storedTransaction(_:)`), so the index holds every purchased row.
    public static let v16 = """
        UPDATE transactions SET signed_date_ms = purchase_date_ms WHERE signed_date_ms IS NULL;
        CREATE INDEX transactions_history ON transactions (account_id, environment, signed_date_ms, id) WHERE status = 'purchased';
        CREATE INDEX transactions_refunds ON transactions (account_id, environment, revocation_date_ms, id)
            WHERE status = 'purchased' AND revocation_date_ms IS NOT NULL;
        """
}
