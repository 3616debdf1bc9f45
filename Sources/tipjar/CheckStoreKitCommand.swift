import Foundation
import TipJar

/// `tipjar check-storekit FILE [--locale en|pt-BR] [--storefront USA]`: loads a `.storekit` file
/// exactly as `serve` would and prints one line per tip in tier order,
/// `<productID>\t<name>\t<displayPrice>`, then `not a tip: <productID> (<type>)` for each other
/// product, then one `applied setting: <key> (<what>)` or `ignored setting: <key> (<why>)` line per key of
/// the file's `settings` (``StoreKitFileSettings/Note/line``). A bad file prints `<file>: <JSON location>: <problem>` and exits 1.
struct CheckStoreKitCommand {
    static let usage = """
        USAGE: tipjar check-storekit FILE [--locale en|pt-BR] [--storefront CODE]

        Loads FILE as 'tipjar serve --storekit FILE' would, then prints each tip in tier order
        as <productID> TAB <name> TAB <displayPrice>, then 'not a tip: <productID> (<type>)'
        for every other product, then 'applied setting: <key> (<what>)' or
        'ignored setting: <key> (<why>)' for every key of the file's settings. Exits 1 with <file>: <JSON location>: <problem> on a bad file.

        OPTIONS:
          --locale en|pt-BR     Language of the names (default: en).
          --storefront CODE     ISO 3166-1 alpha-3 storefront for prices (default: the file's
                                _storefront, else USA).
          -h, --help            Show this help.
        """

    let file: String
    let locale: AppLocale
    let storefront: Storefront?

    init(arguments: [String]) throws {
        let reader = try ArgumentReader(arguments, valued: ["--locale", "--storefront"])
        guard reader.positional.count == 1 else { throw UsageError(message: "check-storekit takes exactly one FILE") }
        file = reader.positional[0]
        let localeName = reader.options["--locale"] ?? "en"
        guard let locale = AppLocale(rawValue: localeName) else { throw UsageError(message: "--locale must be en or pt-BR") }
        self.locale = locale
        if let code = reader.options["--storefront"] {
            guard let storefront = Storefront.named(code.uppercased()) else { throw UsageError(message: "unknown storefront '\(code)'") }
            self.storefront = storefront
        } else {
            storefront = nil
        }
    }

    func run() throws -> Int32 {
        let catalog: Catalog
        do {
            catalog = try Catalog.load(contentsOf: URL(fileURLWithPath: file))
        } catch {
            printError(error.description)
            return 1
        }
        for line in catalog.tipListing(locale: locale.identifier, storefront: storefront) { print(line) }
        for note in catalog.fileSettings.notes { print(note.line) }
        return 0
    }
}
