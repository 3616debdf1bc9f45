import Foundation
import TipJar

/// `tipjar check-storekit FILE [--locale LOCALE] [--storefront CODE]`: loads a `.storekit` file exactly as
/// `serve` would and prints one line per tip in the order they are offered,
/// `<productID>\t<name>\t<displayPrice>`, then `not a tip: <productID> (<type>)` for each other product
/// (``Catalog/tipListing(locale:storefront:)``; fields escaped by ``Catalog/escapedField(_:)``), then one
/// `applied setting: <key> (<what>)` or `ignored setting: <key> (<why>)` line per key of the file's `settings`
/// (``StoreKitFileSettings/Note/line``), then `warning: …` per product with an empty `Product.displayName`
/// (``Catalog/emptyDisplayNameWarnings``) or a price a storefront cannot charge as written
/// (``Catalog/chargedPriceWarnings``). A bad file prints `<file>: <JSON location>: <problem>` and exits 1;
/// a bad option, or an option given twice, exits 64.
struct CheckStoreKitCommand {
    static let usage = """
        USAGE: tipjar check-storekit FILE [--locale LOCALE] [--storefront CODE]

        Loads FILE as 'tipjar serve --storekit FILE' would, then prints each tip in the order the
        tip jar offers them as <productID> TAB <name> TAB <displayPrice>, then
        'not a tip: <productID> (<type>)' for every other product, then
        'applied setting: <key> (<what>)' or 'ignored setting: <key> (<why>)' for every key of the
        file's settings, then 'warning: ...' for a product whose displayName is empty or whose
        price some storefront's currency cannot express. Inside a field, a backslash is written \\\\, a tab \\t, a line feed \\n, a
        carriage return \\r and any other control character, line or paragraph separator or
        bidirectional control \\u{XX} (its hex code point), so every tip line has exactly three
        fields and shows in its own order. Exits 1 with <file>: <JSON location>: <problem> on a bad file.

        OPTIONS:
          --locale LOCALE       Language of the names (default: en): en, pt-BR, or any language the
                                file's localizations hold (fr, de, ja_JP, ...; fr and fr_CA match
                                fr_FR, as an install's locale does).
          --storefront CODE     ISO 3166-1 alpha-3 code of any App Store storefront, for prices
                                (default: the file's _storefront, else USA).
          -h, --help            Show this help.
        """

    let file: String
    let locale: String
    let storefront: Storefront?

    init(arguments: [String]) throws {
        let reader = try ArgumentReader(arguments, valued: ["--locale", "--storefront"])
        guard reader.positional.count == 1 else { throw UsageError(message: "check-storekit takes exactly one FILE") }
        file = reader.positional[0]
        locale = reader.options["--locale"] ?? AppLocale.en.identifier
        guard !locale.trimmingCharacters(in: .whitespaces).isEmpty else { throw UsageError(message: "--locale needs a locale such as en, pt-BR or fr") }
        if let code = reader.options["--storefront"] {
            guard let storefront = Storefront.named(code) else { throw UsageError(message: "--storefront: \(Storefront.unknownCodeMessage(code))") }
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
        guard AppLocale(rawValue: locale) != nil || catalog.holdsLanguage(of: locale) else {
            let held = catalog.fileLocales.map(Catalog.escapedField)
            throw UsageError(
                message: "--locale \(Catalog.escapedField(locale)): the file holds no such locale (it holds "
                    + (held.isEmpty ? "none" : held.joined(separator: ", ")) + "; en and pt-BR are always accepted)")
        }
        for line in catalog.tipListing(locale: locale, storefront: storefront) { print(line) }
        for note in catalog.fileSettings.notes { print(note.line) }
        for warning in catalog.emptyDisplayNameWarnings { print("warning: \(warning)") }
        for warning in catalog.chargedPriceWarnings { print("warning: \(warning)") }
        return 0
    }
}
