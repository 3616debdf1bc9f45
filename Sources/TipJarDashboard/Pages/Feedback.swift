import HTTPServer
import Mustache
import TipJar

/// The feedback layer after an action on the tip jar (README "Domain rules": Three layers of feedback):
/// a notice (thank-you, pending, restore result) or a modal alert (thrown store error,
/// unverified purchase). Encoded in the redirect's query for the no-JavaScript path, by name only:
/// the message is looked up again, so no text from a URL is ever shown.
struct Feedback: Equatable {
    enum Kind: String {
        case purchased, full, pending, cancelled, unverified, failed, restored, restoreFailed
        /// `Transaction.beginRefundRequest(in:)` answered `.success`, `.userCancelled`, or threw.
        case refundRequested, refundCancelled, refundFailed
    }

    var kind: Kind
    /// A StoreKit error name (`networkError`, `productUnavailable`, `invalidSignature`…).
    var errorName: String?
    /// How many transactions a restore delivered.
    var count: Int = 0
    var locale: AppLocale

    static func purchase(_ report: PurchaseReport, locale: AppLocale) -> Feedback {
        let kind: Kind =
            switch report.outcome {
            case .purchased: report.addedHeart ? .purchased : .full
            case .pending: .pending
            case .cancelled: .cancelled
            case .unverified: .unverified
            case .failed: .failed
            }
        return Feedback(kind: kind, errorName: report.errorName, locale: locale)
    }

    var strings: TipJarStrings { .of(locale) }

    /// The sentence for a notice, or `nil`.
    var notice: String? {
        switch kind {
        case .purchased: strings.thankYou
        case .full: strings.thankYouMax
        case .pending: strings.pending
        case .restored: count == 0 ? strings.restoredNone : strings.restoredSome(count)
        case .refundRequested: strings.refundRequested
        case .refundCancelled: strings.refundCancelled
        case .cancelled, .unverified, .failed, .restoreFailed, .refundFailed: nil
        }
    }

    /// The alert's message, or `nil`.
    var alert: String? {
        switch kind {
        case .unverified: strings.unverified
        case .failed: Self.message(forError: errorName, locale: locale)
        case .restoreFailed: (errorName.flatMap(StoreKitError.init(rawValue:)) ?? .unknown).restoreMessage(locale: locale)
        case .refundFailed: (errorName.flatMap(RefundRequestFailure.init(rawValue:))?.error ?? StoreKitError.unknown).message(locale: locale)
        default: nil
        }
    }

    /// The localized message of a StoreKit error by name.
    static func message(forError name: String?, locale: AppLocale) -> String {
        if let name, let error = StoreKitError(rawValue: name) { return error.message(locale: locale) }
        if let name, let error = Product.PurchaseError(rawValue: name) { return error.message(locale: locale) }
        return StoreKitError.unknown.message(locale: locale)
    }

    var data: MustacheValue {
        var data: TemplateData = ["kind": .string(kind.rawValue), "ok": .string(strings.ok)]
        if let notice { data["notice"] = .string(notice) }
        if let alert {
            data["alert"] = .string(alert)
            data["alertTitle"] = .string(
                kind == .restoreFailed ? strings.restoreFailedTitle : kind == .refundFailed ? strings.refundFailedTitle : strings.alertTitle)
        }
        return .object(data)
    }

    /// `feedback=…&error=…&count=…` for the redirect after a form post.
    var query: String {
        var items = ["feedback=\(kind.rawValue)"]
        if let errorName { items.append("error=\(errorName)") }
        if kind == .restored { items.append("count=\(count)") }
        return items.joined(separator: "&")
    }

    /// Reads feedback back from the page's query; unknown values give `nil`.
    static func fromQuery(_ request: HTTPRequest, locale: AppLocale) -> Feedback? {
        guard let kind = request.queryValue("feedback").flatMap(Kind.init(rawValue:)) else { return nil }
        let error = request.queryValue("error").flatMap { name in
            StoreKitError(rawValue: name) != nil || Product.PurchaseError(rawValue: name) != nil
                || VerificationError(rawValue: name) != nil || Transaction.RefundRequestError(rawValue: name) != nil ? name : nil
        }
        let count = max(0, min(1000, request.queryValue("count").flatMap { Int($0) } ?? 0))
        return Feedback(kind: kind, errorName: error, count: count, locale: locale)
    }
}
