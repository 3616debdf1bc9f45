import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Browser sessions and their synchronizer CSRF tokens (OWASP's synchronizer token pattern,
/// https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html):
/// a random session ID in an `HttpOnly; SameSite=Strict` cookie, and a random token bound to it
/// that every form and fragment request must send back. Kept in memory: a restart asks the
/// browser to reload its page.
///
/// Bounded without ever dropping everyone: sessions live in two least-recently-used lists of at
/// most `limit` entries each. A new session starts on the *new* list; the first request that
/// presents its cookie moves it to the *used* list. A flood of cookie-less requests (another site's
/// `<img>` tags: a `SameSite=Strict` cookie is never sent cross-site, RFC 6265bis §5.6.7.1) can only
/// push out the oldest sessions that no browser ever sent back; a session in use is forgotten only
/// when `limit` other used sessions were used after it. Every operation is O(1) under one lock.
final class SessionStore: Sendable {
    /// The session cookie's name.
    static let cookieName = "tipjar_session"
    /// How many sessions each of the two lists keeps.
    let limit: Int
    private let state: Mutex<(new: LRUList, used: LRUList)>

    /// - Parameter limit: the most sessions kept on each list (new and used); at least 1.
    init(limit: Int = 10_000) {
        self.limit = max(1, limit)
        state = Mutex((LRUList(capacity: max(1, limit)), LRUList(capacity: max(1, limit))))
    }

    /// The CSRF token of an existing session, or `nil` for an unknown session ID. Marks the
    /// session as the most recently used (a browser has sent its cookie back).
    func token(forSession id: String) -> String? {
        state.withLock { lists in
            if let token = lists.used.touch(id) { return token }
            guard let token = lists.new.remove(id) else { return nil }
            lists.used.insert(id, token: token)
            return token
        }
    }

    /// Stores a session made with ``randomHexPair()`` on the new list, evicting that list's least
    /// recently used session when it is full.
    func insert(id: String, token: String) {
        state.withLock { $0.new.insert(id, token: token) }
    }

    /// How many sessions are kept: never yet presented, and presented at least once.
    var counts: (new: Int, used: Int) { state.withLock { ($0.new.count, $0.used.count) } }

    /// The `Set-Cookie` field value that hands a browser the session `id`.
    static func setCookie(id: String) -> String { "\(cookieName)=\(id); Path=/; HttpOnly; SameSite=Strict" }

    /// Two independent 32-byte secrets (a session ID and its CSRF token) from one read of the
    /// system's CSPRNG (glibc's `arc4random_buf`, seeded from `getrandom(2)`), as 64 hex
    /// digits each.
    static func randomHexPair() -> (first: String, second: String) {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeMutableBytes { buffer in arc4random_buf(buffer.baseAddress!, buffer.count) }
        let digits = Array("0123456789abcdef".utf8)
        func hex(_ slice: ArraySlice<UInt8>) -> String {
            var text = [UInt8]()
            text.reserveCapacity(slice.count * 2)
            for byte in slice {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0xF)])
            }
            return String(decoding: text, as: UTF8.self)
        }
        return (hex(bytes[0..<32]), hex(bytes[32..<64]))
    }

    /// Reads the session ID from a `Cookie` field value (RFC 6265 §5.4 `name=value; …` pairs).
    static func sessionID(fromCookie header: String?) -> String? {
        cookie(named: cookieName, in: header)
    }

    /// The value of the cookie `name` in a `Cookie` field value (RFC 6265 §5.4), or `nil`.
    static func cookie(named name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.utf8.split(separator: UInt8(ascii: ";")) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = pair[..<equals].drop { $0 == UInt8(ascii: " ") }
            guard key.elementsEqual(name.utf8) else { continue }
            let value = pair[pair.index(after: equals)...].drop { $0 == UInt8(ascii: " ") }
            return value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
        }
        return nil
    }

    /// Compares two secrets in time that depends only on their lengths.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// A bounded map from session ID to token that forgets its least recently used entry when full:
/// a dictionary from ID to slot, and the slots linked from oldest to newest (a slot array with a
/// free list, so no operation allocates a node or scans).
struct LRUList: Sendable {
    private struct Slot: Sendable {
        var id: String
        var token: String
        var older = -1
        var newer = -1
    }

    let capacity: Int
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var index: [String: Int] = [:]
    private var oldest = -1
    private var newest = -1

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { index.count }

    /// The token of `id`, which becomes the newest entry; `nil` when absent.
    mutating func touch(_ id: String) -> String? {
        guard let slot = index[id] else { return nil }
        unlink(slot)
        linkAsNewest(slot)
        return slots[slot].token
    }

    /// Removes `id`. - Returns: its token, or `nil` when absent.
    mutating func remove(_ id: String) -> String? {
        guard let slot = index.removeValue(forKey: id) else { return nil }
        unlink(slot)
        let token = slots[slot].token
        slots[slot].id = ""
        slots[slot].token = ""
        freeSlots.append(slot)
        return token
    }

    /// Adds `id` as the newest entry, first forgetting the oldest when the list is full.
    mutating func insert(_ id: String, token: String) {
        if let slot = index[id] {
            slots[slot].token = token
            unlink(slot)
            linkAsNewest(slot)
            return
        }
        if index.count >= capacity, oldest >= 0 { _ = remove(slots[oldest].id) }
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = Slot(id: id, token: token)
        } else {
            slot = slots.count
            slots.append(Slot(id: id, token: token))
        }
        index[id] = slot
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let (older, newer) = (slots[slot].older, slots[slot].newer)
        if older >= 0 { slots[older].newer = newer } else { oldest = newer }
        if newer >= 0 { slots[newer].older = older } else { newest = older }
        slots[slot].older = -1
        slots[slot].newer = -1
    }

    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = -1
        if newest >= 0 { slots[newest].newer = slot } else { oldest = slot }
        newest = slot
    }
}
