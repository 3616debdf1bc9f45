import TipJar

/// The CLDR plural category of a whole number in the app's languages, for choosing between a singular and a
/// plural sentence (Foundation's automatic grammar agreement is not in swift-corelibs-foundation on Linux).
///
/// Unicode CLDR, "Language Plural Rules" (common/supplemental/plurals.xml), cardinal rules:
/// - `en`: one is `i = 1 and v = 0` (1); other is everything else (0, 2, 3…);
/// - `pt`: one is `i = 0..1` (0 and 1); other is everything else (2, 3…). `pt-BR` uses `pt`'s rules (`pt-PT` has
///   its own, like English's).
///
/// Only whole counts are shown here, so the visible fraction digits `v` are always 0.
enum PluralCategory: Equatable, Sendable {
    case one, other

    /// The category of `count` in `locale`.
    init(_ count: Int, locale: AppLocale) {
        switch locale {
        case .en: self = count == 1 ? .one : .other
        case .ptBR: self = (0...1).contains(count) ? .one : .other
        }
    }
}
