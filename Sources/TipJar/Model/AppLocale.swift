/// The locales an install can run in: `en` and `pt-BR` (the seeds were written in both).
public enum AppLocale: String, Sendable, CaseIterable, Codable {
    /// English.
    case en
    /// Brazilian Portuguese.
    case ptBR = "pt-BR"

    /// The BCP 47 identifier Foundation and the catalog use for this locale.
    public var identifier: String { rawValue }
}
