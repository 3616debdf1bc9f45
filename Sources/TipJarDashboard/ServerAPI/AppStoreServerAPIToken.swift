import Foundation
import HTTPServer
import TipJarScenario

/// The bearer token every App Store Server API request carries, checked for the shape Apple describes in "Generating
/// JSON Web Tokens for API requests" (https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests):
/// a JWS in compact form (RFC 7515 §7.1) whose header has `alg` `ES256`, a `kid` and `typ` `JWT`, and whose claims
/// have `iss` (the issuer ID), `aud` `appstoreconnect-v1`, `bid` (the app's bundle ID, here `serve --bundle-id`), `exp`
/// (UNIX seconds, not passed, and at most 60 minutes after `iat`) and `iat` when sent.
///
/// `iat` may be missing: Apple's own App Store Server Library (`_generate_token` in `appstoreserverlibrary/api_client.py`,
/// https://github.com/apple/app-store-server-library-python) sends `bid`, `iss`, `aud` and `exp` alone, with `exp` five
/// minutes ahead, and Apple's server accepts it; without `iat`, `exp` must be at most 60 minutes from now.
///
/// **Its signature is not verified**: the dashboard does not hold the public key of the developer's In-App Purchase
/// key (App Store Connect does). Only its form is: 64 bytes, an ES256 signature's size (RFC 7518 §3.4). Anyone can
/// forge a token that passes; the check exists so that a client that builds a wrong token finds out here.
struct AppStoreServerAPIToken {
    /// The audience Apple requires.
    static let audience = "appstoreconnect-v1"
    /// The longest life of a token: `exp` at most 60 minutes after `iat`.
    static let maximumLifetime: Int64 = 3_600
    /// How far `iat` may be ahead of this clock (a client's clock a little fast).
    static let allowedClockSkew: Int64 = 60

    /// Why a token was refused, said in the 401's body.
    struct Refusal: Error, Equatable {
        var reason: String

        /// The 401: `WWW-Authenticate: Bearer` with RFC 6750 §3.1's `invalid_token`, and the reason as `errorMessage`
        /// (Apple documents no body for its 401, "The JSON Web Token (JWT) in the authorization header is invalid";
        /// its library reads a 401 as an error without a code either way).
        var response: HTTPResponse {
            var response = AppStoreServerAPIError(status: .unauthorized, code: nil, message: "Unauthorized: " + reason).response
            response.fields["WWW-Authenticate"] = #"Bearer realm="App Store Server API", error="invalid_token""#
            return response
        }
    }

    /// Checks the `Authorization` field of a request.
    /// - Parameters:
    ///   - authorization: the field's value, or `nil`.
    ///   - bundleID: the bundle ID `bid` must name.
    ///   - now: the current UNIX time in seconds.
    /// - Throws: ``Refusal``, naming the first thing wrong.
    static func check(_ authorization: String?, bundleID: String, now: Int64) throws(Refusal) {
        guard let authorization else { throw Refusal(reason: "send Authorization: Bearer <JWT>.") }
        guard let token = AdminTokenCheck.bearerCredentials(authorization) else {
            throw Refusal(reason: "the Authorization field must use the Bearer scheme.")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Refusal(reason: "the bearer token is not a JWT: it needs three base64url parts separated by dots.") }
        guard let header = object(parts[0]) else { throw Refusal(reason: "the JWT header is not base64url-encoded JSON object.") }
        guard let claims = object(parts[1]) else { throw Refusal(reason: "the JWT payload is not base64url-encoded JSON object.") }
        guard header["alg"] == .string("ES256") else { throw Refusal(reason: "the JWT header's alg must be ES256.") }
        guard case .string(let kid)? = header["kid"], !kid.isEmpty else { throw Refusal(reason: "the JWT header needs kid, your private key ID.") }
        guard header["typ"] == .string("JWT") else { throw Refusal(reason: "the JWT header's typ must be JWT.") }
        guard let signature = CompactJWS.decodeBase64URL(parts[2]), signature.count == 64 else {
            throw Refusal(reason: "the JWT signature must be an ES256 signature (64 bytes, base64url).")
        }
        guard case .string(let issuer)? = claims["iss"], !issuer.isEmpty else { throw Refusal(reason: "the JWT needs iss, your issuer ID.") }
        guard claims["aud"] == .string(audience) else { throw Refusal(reason: "the JWT's aud must be \(audience).") }
        guard claims["bid"] == .string(bundleID) else { throw Refusal(reason: "the JWT's bid must be the app's bundle ID, \(bundleID).") }
        guard let expires = seconds(claims["exp"]) else { throw Refusal(reason: "the JWT needs exp, a UNIX time in seconds.") }
        guard expires > now else { throw Refusal(reason: "the JWT has expired (exp is past).") }
        if let value = claims["iat"] {
            guard let issued = seconds(value) else { throw Refusal(reason: "the JWT's iat must be a UNIX time in seconds.") }
            guard issued <= now + allowedClockSkew else { throw Refusal(reason: "the JWT's iat is in the future.") }
            guard expires - issued <= maximumLifetime else { throw Refusal(reason: "the JWT's exp must be at most 60 minutes after iat.") }
        } else {
            guard expires - now <= maximumLifetime else { throw Refusal(reason: "the JWT's exp must be at most 60 minutes from now.") }
        }
    }

    /// A base64url part that holds a JSON object, or `nil`.
    static func object(_ part: Substring) -> [String: JSONValue]? {
        guard let data = CompactJWS.decodeBase64URL(part), case .object(let object)? = try? JSONValue(parsing: data) else { return nil }
        return object
    }

    /// A whole number of seconds (a JSON number without a fraction), or `nil`.
    static func seconds(_ value: JSONValue?) -> Int64? {
        guard case .number(let number)? = value, number == number.rounded(), abs(number) < 1e15 else { return nil }
        return Int64(number)
    }
}
