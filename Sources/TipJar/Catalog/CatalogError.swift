/// Why a StoreKit configuration file was refused: which file, where in it, and what is wrong.
///
/// The importer never half-loads a catalog: any problem throws one of these
/// (Tests/TipJarTests/Fixtures/storekit/README.md: "refuse every `bad-*` file with a clear message (file, JSON location such as
/// `products[1].displayPrice`, and what is wrong)"; README "Domain rules": Bad input and faults).
public struct CatalogError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file as given: a path for ``Catalog/load(contentsOf:)``, the `fileName` passed to
    /// ``Catalog/init(data:fileName:)``.
    public var file: String
    /// Where the problem is. For content problems a JSON path from the root: `"$"` for the root itself,
    /// `"products[1].displayPrice"`, `"settings._storefront"`,
    /// `"subscriptionGroups[0].subscriptions[1].productID"`. For JSON syntax problems a text position,
    /// `"line 12, column 3"` (1-based; columns count characters), or `"end of file (line 6, column 42)"`.
    /// Empty when the file itself cannot be read (missing, a folder, not a regular file).
    public var location: String
    /// What is wrong, in plain words, e.g. `"displayPrice \"two dollars\" is not a decimal number"`.
    public var problem: String

    /// Creates an error.
    /// - Parameters:
    ///   - file: the file path or name.
    ///   - location: JSON path or text position (see ``location``).
    ///   - problem: what is wrong.
    public init(file: String, location: String, problem: String) {
        self.file = file
        self.location = location
        self.problem = problem
    }

    /// `"<file>: <location>: <problem>"`, e.g.
    /// `"bad-price-not-a-number.storekit: products[1].displayPrice: displayPrice \"two dollars\" is not a decimal number"`;
    /// `"<file>: <problem>"` when ``location`` is empty (`"tips.storekit: cannot read the file: no such file"`).
    /// The file's path and the location are escaped by ``Catalog/escapedField(_:)`` (the problem quotes input through
    /// ``Catalog/shownInput(_:limit:)`` already), so the line can go to a terminal or a log as it is.
    public var description: String {
        let file = Catalog.escapedField(file)
        return location.isEmpty ? "\(file): \(problem)" : "\(file): \(Catalog.escapedField(location)): \(problem)"
    }
}
