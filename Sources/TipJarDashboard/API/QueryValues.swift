import HTTPServer
import TipJar

/// The query parameters the list pages and the JSON API read (`/transactions`, `GET /api/transactions`,
/// `GET /api/installs`, `GET /api/accounts/{accountID}/transactions`). Every one is checked; a bad one is a 400
/// naming it.
enum QueryValues {
    /// `accountID`, `installID`, `productID`, `status`, `page` (1...1,000,000) and `pageSize` (1...200).
    static func transactionQuery(_ request: HTTPRequest) throws -> TransactionQuery {
        TransactionQuery(
            accountID: try text(request, "accountID"), installID: try text(request, "installID"),
            productID: try text(request, "productID"), status: try choice(request, "status", StoredTransaction.Status.self),
            page: try integer(request, "page", default: 1, in: 1...InstallQuery.maximumPage),
            pageSize: try integer(request, "pageSize", default: 50, in: 1...200))
    }

    /// A whole-number query parameter; absent or empty gives `default`.
    /// - Throws: `RequestError` (400) for anything else outside `range`.
    static func integer(_ request: HTTPRequest, _ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        try optionalInteger(request, name, in: range) ?? value
    }

    /// A whole-number query parameter; absent or empty gives `nil`.
    /// - Throws: `RequestError` (400) for anything else outside `range`.
    static func optionalInteger(_ request: HTTPRequest, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return nil }
        guard let number = Int(raw), range.contains(number) else {
            throw RequestError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    /// A query parameter naming one case of `T`; absent or empty gives `nil`.
    /// - Throws: `RequestError` (400) listing the allowed values.
    static func choice<T: RawRepresentable & CaseIterable>(_ request: HTTPRequest, _ name: String, _ type: T.Type) throws -> T? where T.RawValue == String {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return nil }
        guard let value = T(rawValue: raw) else {
            throw RequestError(message: "\(name) must be one of \(T.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return value
    }

    /// A free-text filter; absent or empty gives `nil`.
    /// - Throws: `RequestError` (400) above 200 characters or with control characters.
    static func text(_ request: HTTPRequest, _ name: String) throws -> String? {
        guard let raw = request.queryValue(name), !raw.isEmpty else { return nil }
        guard raw.count <= 200, !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RequestError(message: "\(name) must be at most 200 printable characters.")
        }
        return raw
    }
}
