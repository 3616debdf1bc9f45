import Testing

@testable import HTTPServer

/// The outcome of feeding bytes to a parser: events (needsMore dropped) and the error, if any.
struct ParseOutcome: Equatable {
    var requests: [HTTPRequestParser.ParsedRequest] = []
    var continues = 0
    var error: HTTPParseError?
}

/// Feeds `raw` in pieces of `chunk` bytes, draining events after each piece.
func feed(_ raw: [UInt8], chunk: Int, limits: HTTPLimits = HTTPLimits(), allowedHosts: [String]? = nil) -> ParseOutcome {
    var parser = HTTPRequestParser(limits: limits, allowedHosts: allowedHosts)
    var outcome = ParseOutcome()
    var index = 0
    repeat {
        let end = min(raw.count, index + chunk)
        parser.append(raw[index..<end])
        index = end
        do {
            while true {
                let event = try parser.nextEvent()
                if case .request(let request) = event { outcome.requests.append(request); continue }
                if case .continueExpected = event { outcome.continues += 1; continue }
                break
            }
        } catch {
            outcome.error = error
            return outcome
        }
    } while index < raw.count
    return outcome
}

/// Parses `text` whole and byte by byte; a difference between the two is recorded as the calling test's failure.
func parseBothWays(
    _ text: String, limits: HTTPLimits = HTTPLimits(), allowedHosts: [String]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    parseBothWays(Array(text.utf8), limits: limits, allowedHosts: allowedHosts, sourceLocation: sourceLocation)
}

func parseBothWays(
    _ raw: [UInt8], limits: HTTPLimits = HTTPLimits(), allowedHosts: [String]? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) -> ParseOutcome {
    let whole = feed(raw, chunk: max(1, raw.count), limits: limits, allowedHosts: allowedHosts)
    let bytewise = feed(raw, chunk: 1, limits: limits, allowedHosts: allowedHosts)
    if whole != bytewise {
        Issue.record("whole and byte-by-byte parsing differ:\n\(whole)\nvs\n\(bytewise)", sourceLocation: sourceLocation)
    }
    return whole
}

let host = "Host: 127.0.0.1:8080\r\n"
