/// An error that knows its alert text in each locale the tip jar speaks.
public protocol LocalizedMessage {
    /// The message for `locale`.
    /// - Parameter locale: The install's locale.
    /// - Returns: One sentence or two, for a modal alert.
    func message(locale: AppLocale) -> String
}
