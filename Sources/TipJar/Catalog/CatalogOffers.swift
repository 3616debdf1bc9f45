import Foundation
import Synchronization

/// What a loaded catalog offers in each storefront and locale, computed once and kept: each product as
/// `Product.products(for:)` answers it (name with its fallback, description, `price` as the storefront charges it and
/// `displayPrice`, that amount formatted by Foundation),
/// and the tip jar's tiles in tier order (name, price, emoji, tint). A catalog never changes while it is loaded, so
/// no load formats a price or searches a localization a second time.
///
/// The names of every ``AppLocale`` and the listings of the catalog's default storefront, USA and BRA are computed
/// when the store opens; any other storefront's listing on its first load, so opening a store does not pay for 175
/// storefronts it may never show.
public final class CatalogOffers: Sendable {
    /// One storefront and locale: what the store answers and what the tip jar shows.
    public struct Listing: Sendable, Equatable {
        /// Every product of the catalog, tip or not, in the store's own order (reversed file order; sorting is the
        /// app's job), resolved for the storefront and locale.
        public let storeProducts: [Product]
        /// The tips among ``storeProducts``, in the same store order: the whole answer to a load that asks for
        /// every tip.
        public let storeTips: [Product]
        /// The tiles for ``storeTips``, in tier order (``TipJarService/offers(from:catalog:locale:)``).
        public let tipOffers: [TipOffer]
    }

    private struct Key: Hashable {
        var storefront: String
        var locale: AppLocale
    }

    private let catalog: Catalog
    private let texts: [AppLocale: [(name: String, description: String)]]
    private let listings: Mutex<[Key: (storefront: Storefront, listing: Listing)]>
    /// The catalog's tip IDs in tier order: what the tip jar asks `Product.products(for:)` for.
    public let tipIDs: [String]

    /// Computes the names of `catalog` and the listings of `storefronts`.
    /// - Parameters:
    ///   - catalog: the loaded catalog.
    ///   - storefronts: the storefronts computed now; the catalog's default, USA and BRA when `nil`.
    public init(catalog: Catalog, storefronts: [Storefront]? = nil) {
        self.catalog = catalog
        tipIDs = catalog.tips.map(\.productID)
        // `Product.displayName` and `description` follow the file's `_locale`, whatever the install's language
        // (``Catalog/productDisplayName(of:)``); a price depends on the storefront only: each is computed once.
        texts = Dictionary(
            uniqueKeysWithValues: AppLocale.allCases.map { locale in
                (
                    locale,
                    catalog.products.map { entry in
                        (name: catalog.productDisplayName(of: entry), description: catalog.productDescription(of: entry))
                    }
                )
            })
        listings = Mutex([:])
        for storefront in storefronts ?? [catalog.defaultStorefront, .usa, .bra] {
            _ = listing(storefront: storefront, locale: .en)
        }
    }

    /// The listing for a storefront and locale.
    /// - Parameters:
    ///   - storefront: the install's storefront.
    ///   - locale: the install's locale.
    /// - Returns: the kept listing; on a storefront's first load (every locale of it is computed then, and kept),
    ///   and for a hand-made storefront whose code names another's, one computed now.
    public func listing(storefront: Storefront, locale: AppLocale) -> Listing {
        let key = Key(storefront: storefront.countryCode, locale: locale)
        let kept = listings.withLock { $0[key] }
        if let kept, kept.storefront == storefront { return kept.listing }
        // A price depends on the storefront only, a name on the locale only (computed at init): the amount the
        // storefront charges (``Storefront/chargedPrice(_:)``) and that amount as `displayPrice`.
        let charged = catalog.products.map { storefront.chargedPrice($0.price) }
        let prices = charged.map(storefront.displayPrice)
        var computed: [Key: Listing] = [:]
        for locale in AppLocale.allCases {
            let text = texts[locale] ?? []
            let products = catalog.products.indices.map { index in
                Product(
                    id: catalog.products[index].productID, type: catalog.products[index].type, displayName: text[index].name,
                    description: text[index].description, price: charged[index], displayPrice: prices[index])
            }
            computed[Key(storefront: storefront.countryCode, locale: locale)] = Self.listing(products: products, catalog: catalog, locale: locale)
        }
        if kept == nil, storefront == Storefront.named(storefront.countryCode) || storefront == catalog.defaultStorefront {
            listings.withLock { listings in
                for (key, listing) in computed where listings[key] == nil { listings[key] = (storefront, listing) }
            }
        }
        return computed[key]!
    }

    /// The StoreKit `Product` for one catalog entry in one storefront and locale, from the listing.
    /// - Returns: the product; computed now for an entry that is not in the catalog.
    public func product(for entry: CatalogProduct, storefront: Storefront, locale: AppLocale) -> Product {
        let storeProducts = listing(storefront: storefront, locale: locale).storeProducts
        // Found by index, not by walking the listing (a page of every tip would cost n²): the store's order is the
        // file's reversed, so the product at index i of ``Catalog/products`` is at count - 1 - i.
        let position = catalog.indexByID[entry.productID].map { storeProducts.count - 1 - $0 }
        if let position, storeProducts.indices.contains(position), storeProducts[position].id == entry.productID {
            return storeProducts[position]
        }
        return Self.product(for: entry, catalog: catalog, storefront: storefront, locale: locale)
    }

    /// `Product` as StoreKit builds it: the name and description of the file's `_locale`
    /// (``Catalog/productDisplayName(of:)``, empty when the file leaves it empty), the price the storefront charges
    /// (``Storefront/chargedPrice(_:)``) and that price formatted for it. `locale` is the install's; StoreKit's names do
    /// not follow it.
    static func product(for entry: CatalogProduct, catalog: Catalog, storefront: Storefront, locale: AppLocale) -> Product {
        Product(
            id: entry.productID, type: entry.type, displayName: catalog.productDisplayName(of: entry),
            description: catalog.productDescription(of: entry), price: storefront.chargedPrice(entry.price),
            displayPrice: storefront.displayPrice(entry.price))
    }

    private static func listing(products: [Product], catalog: Catalog, locale: AppLocale) -> Listing {
        let storeOrder = Array(products.reversed())
        let tipIDs = Set(catalog.tips.map(\.productID))
        let storeTips = storeOrder.filter { tipIDs.contains($0.id) }
        return Listing(storeProducts: storeOrder, storeTips: storeTips, tipOffers: TipJarService.offers(from: storeTips, catalog: catalog, locale: locale))
    }
}
