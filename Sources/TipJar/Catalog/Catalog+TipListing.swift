extension Catalog {
    /// A plain-text summary of the catalog as an install would see it, for `tipjar check-storekit` and tests:
    /// one line `<productID>\t<name>\t<displayPrice>` per tip in tier order, then one line
    /// `not a tip: <productID> (<type>)` per other product in file order, `<type>` being the file's raw
    /// `type` string (e.g. `NonConsumable`, `RecurringSubscription`).
    ///
    /// Names follow ``displayName(of:locale:)``; prices ``Storefront/displayPrice(_:)`` (DESIGN.md rules 1, 2;
    /// the expectations table of shared/storekit/README.md).
    /// - Parameters:
    ///   - locale: the install's locale, e.g. `"en"`, `"pt-BR"`.
    ///   - storefront: the install's storefront; `nil` means ``defaultStorefront`` (the file's `_storefront`,
    ///     else USA).
    /// - Returns: the lines, without trailing newlines; empty for an empty catalog.
    public func tipListing(locale: String, storefront: Storefront? = nil) -> [String] {
        let store = storefront ?? defaultStorefront
        let tipLines = tips.map { "\($0.productID)\t\(displayName(of: $0, locale: locale))\t\(store.displayPrice($0.price))" }
        let otherLines = nonTips.map { "not a tip: \($0.productID) (\($0.type.rawValue))" }
        return tipLines + otherLines
    }
}
