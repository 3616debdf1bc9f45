/// The tip jar service's state, exactly the seed's three cases (README "Domain rules": Loading).
public enum TipJarState: Sendable, Equatable {
    /// The catalog is being fetched: skeleton tiles, no buttons.
    case loading
    /// The fetch failed or came back empty: a message and a Retry button.
    case unavailable(UnavailableReason)
    /// The offers, in tier order.
    case ready([TipOffer])
}

/// Why the tip jar shows its inline retry state.
public enum UnavailableReason: Sendable, Equatable {
    /// `Product.products(for:)` threw.
    case loadFailed(StoreKitError)
    /// The store returned no products for the requested IDs (empty catalog, or a product-ID
    /// mismatch that Retry cannot fix).
    case empty
}
