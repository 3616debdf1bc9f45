import Foundation

extension Catalog {
    /// Loads a StoreKit configuration file (`.storekit`, JSON, format 1.0 to 5.x) from disk.
    ///
    /// All or nothing: returns a complete catalog or throws (Tests/TipJarTests/Fixtures/storekit/README.md: "never a crash and
    /// never a half-loaded catalog"; README "Domain rules": Bad input and faults).
    /// - Parameter url: a file URL.
    /// - Returns: the catalog.
    /// - Throws: ``CatalogError`` whose ``CatalogError/file`` is `url.path`, when the file cannot be read or is
    ///   not a valid configuration (see ``init(data:fileName:)``).
    public static func load(contentsOf url: URL) throws(CatalogError) -> Catalog {
        let data: Data
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CatalogError(file: url.path, location: "", problem: "cannot read the file: no such file")
        }
        guard !isDirectory.boolValue else {
            throw CatalogError(file: url.path, location: "", problem: "cannot read the file: it is a folder, not a StoreKit configuration file")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard (attributes?[.type] as? FileAttributeType) == .typeRegular else {
            throw CatalogError(file: url.path, location: "", problem: "cannot read the file: it is not a regular file")
        }
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = (error as NSError).localizedDescription
            throw CatalogError(file: url.path, location: "", problem: "cannot read the file (\(Catalog.escapedField(reason)))")
        }
        return try Catalog(data: data, fileName: url.path)
    }

    /// Parses the bytes of a StoreKit configuration file.
    ///
    /// Accepts what Xcode writes in formats 1.0 to 5.x, tolerating the keys Xcode omits (`identifier`,
    /// `nonRenewingSubscriptions`, `settings` and its keys, `localizations`). Refuses, naming the location:
    /// non-JSON (e.g. a property list: "not a StoreKit configuration file (not JSON)"), truncated or invalid
    /// JSON (`line L, column C` / `end of file (…)`), a missing `version` or `products`, an unsupported
    /// version, a wrong JSON type at any read key outside `settings` (a wrongly typed setting is reported in
    /// ``Catalog/fileSettings`` instead, and ignored), a `displayPrice` that is not an exact non-negative decimal
    /// (`products[1].displayPrice`), an unknown `type` (`products[0].type`), an unknown `_storefront`, and a
    /// `productID` used twice anywhere in the file (named, with both locations).
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8 JSON; at most 16 MiB).
    ///   - fileName: how errors name the file, e.g. `"TipProducts.storekit"` or a path.
    /// - Throws: ``CatalogError``.
    public init(data: Data, fileName: String) throws(CatalogError) {
        self = try StoreKitFileDecoder(file: fileName).decode(data)
    }

    /// The name of the catalog shipped in the TipJar bundle: `TipProducts.storekit`.
    public static let shippedFileName = "TipProducts.storekit"

    /// The catalog shipped with the app, `Resources/TipProducts.storekit` in the TipJar bundle: three consumable
    /// tips coffee 0.99, snack 2.99, lunch 4.99 (`com.example.tipjar.tip.*`), named in `en_US` and `pt_BR`,
    /// storefront USA (README "Domain rules": Catalog).
    /// - Returns: the catalog.
    /// - Throws: ``CatalogError`` when the resource is missing from `Bundle.module` or invalid.
    public static func shipped() throws(CatalogError) -> Catalog {
        guard let url = Bundle.module.url(forResource: "TipProducts", withExtension: "storekit") else {
            throw CatalogError(file: shippedFileName, location: "$", problem: "missing from the TipJar bundle resources")
        }
        return try load(contentsOf: url)
    }
}
