import Foundation

/// Walks the JSONSerialization tree of a `.storekit` file into a ``Catalog``, refusing anything malformed
/// with the JSON path of the problem (Tests/TipJarTests/Fixtures/storekit/README.md). Internal to the importer; the public entry
/// points are ``Catalog/init(data:fileName:)`` and ``Catalog/load(contentsOf:)``.
///
/// Tolerated where Xcode omits them: `identifier`, `nonRenewingSubscriptions`, `subscriptionGroups`,
/// `settings` and all its keys (each applied or noted, ``StoreKitSettingsDecoder``), a product's `referenceName`, `familyShareable`, `localizations`, and a
/// localization's `displayName`/`description`. Required: `version`, `products`, and each product's
/// `productID`, `type` (in `products`) and `displayPrice`, each localization's `locale`.
struct StoreKitFileDecoder {
    /// The file name used in errors.
    let file: String

    /// Largest file accepted, in bytes (real configuration files are a few kilobytes).
    static let maxFileSize = 16 * 1024 * 1024

    /// The sections products live in, with the product types each accepts.
    enum Section {
        case products, nonRenewingSubscriptions, subscriptions

        var allowedTypes: [ProductType] {
            switch self {
            // Format 1.0 files keep non-renewing subscriptions in `products`.
            case .products: [.consumable, .nonConsumable, .nonRenewingSubscription]
            case .nonRenewingSubscriptions: [.nonRenewingSubscription]
            case .subscriptions: [.autoRenewable]
            }
        }

        /// The type assumed when a subscription entry omits `type`; `nil` means `type` is required.
        var defaultType: ProductType? {
            switch self {
            case .products: nil
            case .nonRenewingSubscriptions: .nonRenewingSubscription
            case .subscriptions: .autoRenewable
            }
        }
    }

    /// Decodes a whole file.
    /// - Throws: ``CatalogError`` for anything not a readable StoreKit configuration.
    func decode(_ data: Data) throws(CatalogError) -> Catalog {
        guard data.count <= Self.maxFileSize else {
            throw CatalogError(file: file, location: "$", problem: "the file is too large (\(data.count) bytes; at most \(Self.maxFileSize)): not a StoreKit configuration file")
        }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw StoreKitJSONSyntax.catalogError(for: error, data: data, file: file)
        }
        let root = StoreKitJSONNode(value: parsed, path: "$", file: file)
        guard parsed is [String: Any] else {
            throw root.error("the JSON root is \(StoreKitJSONNode.kind(of: parsed)), not an object: not a StoreKit configuration file")
        }
        let notStoreKit = " (not a StoreKit configuration file?)"
        let version = try decodeVersion(root.requiredMember("version", why: notStoreKit))
        let productsNode = try root.requiredMember("products", why: notStoreKit)

        var identifier: String?
        if let node = try root.optionalMember("identifier") { identifier = try node.string() }
        var settings = StoreKitFileSettings()
        if let node = try root.optionalMember("settings") {
            settings = try StoreKitSettingsDecoder().decode(node)
        }

        var products: [CatalogProduct] = []
        var seen: [String: String] = [:]  // productID → path of its first use
        func add(_ node: StoreKitJSONNode, _ section: Section) throws(CatalogError) {
            let product = try decodeProduct(node, section: section, fileIndex: products.count)
            if let first = seen[product.productID] {
                throw CatalogError(
                    file: file, location: node.path(forKey: "productID"),
                    problem: "duplicate productID \(StoreKitJSONNode.shown("\"\(product.productID)\"")) (already used at \(first))")
            }
            seen[product.productID] = node.path(forKey: "productID")
            products.append(product)
        }
        for node in try productsNode.elements() { try add(node, .products) }
        if let list = try root.optionalMember("nonRenewingSubscriptions") {
            for node in try list.elements() { try add(node, .nonRenewingSubscriptions) }
        }
        if let groups = try root.optionalMember("subscriptionGroups") {
            for group in try groups.elements() {
                _ = try group.object()
                guard let subscriptions = try group.optionalMember("subscriptions") else { continue }
                for node in try subscriptions.elements() { try add(node, .subscriptions) }
            }
        }
        return Catalog(
            identifier: identifier, formatVersion: version, defaultStorefront: settings.storefront ?? .usa,
            fileLocale: settings.locale, fileSettings: settings, products: products)
    }

    /// Decodes and checks `version`: `{"major": Int, "minor": Int}`, 1.0 through 5.x.
    func decodeVersion(_ node: StoreKitJSONNode) throws(CatalogError) -> CatalogFormatVersion {
        _ = try node.object()
        let major = try node.requiredMember("major").smallInt()
        let minor = try node.optionalMember("minor")?.smallInt() ?? 0
        let version = CatalogFormatVersion(major: major, minor: minor)
        guard version.isSupported else {
            throw node.error("unsupported format version \(version) (this importer reads 1.0 to \(CatalogFormatVersion.newestSupportedMajor).x)")
        }
        return version
    }

    /// Decodes one product entry of a section.
    func decodeProduct(_ node: StoreKitJSONNode, section: Section, fileIndex: Int) throws(CatalogError) -> CatalogProduct {
        _ = try node.object()
        let idNode = try node.requiredMember("productID")
        let productID = try idNode.string()
        guard Catalog.nonEmpty(productID) != nil else { throw idNode.error("productID is empty") }

        let type: ProductType
        var typeNode = try node.optionalMember("type")
        if typeNode == nil, section.defaultType == nil { typeNode = try node.requiredMember("type") }
        if let typeNode {
            let raw = try typeNode.string()
            guard let known = ProductType(rawValue: raw) else {
                let expected = ProductType.allCases.map(\.rawValue).joined(separator: ", ")
                throw typeNode.error("unknown product type \(StoreKitJSONNode.shown("\"\(raw)\"")) (expected one of \(expected))")
            }
            guard section.allowedTypes.contains(known) else {
                let allowed = section.allowedTypes.map(\.rawValue).joined(separator: " or ")
                throw typeNode.error("a \(raw) product does not belong here (expected \(allowed))")
            }
            type = known
        } else {
            type = section.defaultType ?? .consumable
        }

        let price = try StoreKitPrice.parse(node.requiredMember("displayPrice"))
        let referenceName = try node.optionalMember("referenceName")?.string() ?? ""
        let familyShareable = try node.optionalMember("familyShareable")?.bool() ?? false
        var localizations: [CatalogLocalization] = []
        if let list = try node.optionalMember("localizations") {
            for entry in try list.elements() {
                _ = try entry.object()
                localizations.append(
                    CatalogLocalization(
                        locale: try entry.requiredMember("locale").string(),
                        displayName: try entry.optionalMember("displayName")?.string() ?? "",
                        description: try entry.optionalMember("description")?.string() ?? ""
                    ))
            }
        }
        return CatalogProduct(
            productID: productID, referenceName: referenceName, type: type, price: price,
            localizations: localizations, familyShareable: familyShareable, fileIndex: fileIndex)
    }
}
