/// The `version` object of a StoreKit configuration file, e.g. `{"major": 3, "minor": 0}`.
///
/// The importer reads formats 1.0 through 5.x (Tests/TipJarTests/Fixtures/storekit/README.md: "format versions 1.0 to 5.0");
/// a minor version is treated as a compatible addition, a major version above 5 is refused.
public struct CatalogFormatVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major format version (1...5 for readable files).
    public var major: Int
    /// The minor format version (0 or more).
    public var minor: Int

    /// Creates a format version.
    /// - Parameters:
    ///   - major: the major number.
    ///   - minor: the minor number.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// The oldest format the importer reads: 1.0 (Xcode 12).
    public static let oldestSupported = CatalogFormatVersion(major: 1, minor: 0)
    /// The newest major format the importer reads: 5 (any minor).
    public static let newestSupportedMajor = 5

    /// Whether the importer reads this format: 1.0 through 5.x.
    public var isSupported: Bool { self >= .oldestSupported && major <= Self.newestSupportedMajor }

    /// `"major.minor"`, e.g. `"3.0"`.
    public var description: String { "\(major).\(minor)" }

    /// Orders by major, then minor.
    public static func < (lhs: CatalogFormatVersion, rhs: CatalogFormatVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }
}
