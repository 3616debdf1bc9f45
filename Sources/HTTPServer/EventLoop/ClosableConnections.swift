/// The connections a full table could give up for a newcomer, by address, gathered in one walk of the table and used
/// for the accepts of the next ``maxAge`` (``EventLoop/admit(_:)``). A candidate is checked again when it is taken: one
/// that was closed or changed state since is passed over. A connection that begins lingering after the walk joins the
/// candidates at once (``noteLingering(_:now:)``): clients refused by the hundred (streams over their budget, each
/// answered 503 and reconnecting) close the lingering connections a walk found within the same 100 ms, and those
/// answered after it held the table until the next walk, so a lighter newcomer was turned away although the table was
/// full of answered connections. Other candidates (idle, receiving) that appear since wait for the next walk.
///
/// Walking the table at most once per ``maxAge``, not once per accept, per address or per batch, keeps a flood from many
/// addresses that reconnects as fast as it is answered from holding the loop in the search: each walk of 4,096
/// connections costs milliseconds in a debug build.
struct ClosableConnections {
    /// How long one walk's candidates are used: 100 ms, in nanoseconds.
    static let maxAge: UInt64 = 100_000_000

    /// When the table was walked, monotonic ns.
    let gathered: UInt64
    /// One address's candidates, each list best first.
    struct OfAddress {
        let peer: Peer
        /// Idle connections: one that never sent a byte first, then the longest idle.
        var idle: [Connection] = []
        /// Answered connections lingering before their close, the longest lingering first.
        var lingering: [Connection] = []
        /// Requests still being received (head or body), the oldest first.
        var receiving: [Connection] = []
    }

    private var addresses: [OfAddress]
    /// Where each address's candidates are in `addresses`.
    private var slots: [ObjectIdentifier: Int]

    /// Walks `connections` once. A connection accepted in the turn `now` and not read yet is never a candidate: its
    /// first bytes may be waiting in the socket.
    init(_ connections: [Connection?], now: UInt64) {
        gathered = now
        var index: [ObjectIdentifier: Int] = [:]
        var addresses: [OfAddress] = []
        for case let connection? in connections {
            let idle = connection.isIdle
            guard idle || connection.isLingering || connection.isReceivingRequest else { continue }
            if idle && !connection.receivedAny && connection.lastActivity == now { continue }
            let slot = Self.slot(of: connection.peer, in: &addresses, &index)
            if idle {
                addresses[slot].idle.append(connection)
            } else if connection.isLingering {
                addresses[slot].lingering.append(connection)
            } else {
                addresses[slot].receiving.append(connection)
            }
        }
        for slot in addresses.indices {
            addresses[slot].idle.sort(by: Self.idleOrder)
            addresses[slot].idle.reverse()
            addresses[slot].lingering.sort { $0.phaseStart > $1.phaseStart }
            addresses[slot].receiving.sort { $0.phaseStart > $1.phaseStart }
        }
        self.addresses = addresses
        slots = index
    }

    /// The index of `peer`'s candidates in `addresses`, added (empty) when it has none yet.
    private static func slot(of peer: Peer, in addresses: inout [OfAddress], _ slots: inout [ObjectIdentifier: Int]) -> Int {
        let key = ObjectIdentifier(peer)
        if let known = slots[key] { return known }
        slots[key] = addresses.count
        addresses.append(OfAddress(peer: peer))
        return addresses.count - 1
    }

    /// Adds `connection`, which has just begun lingering (``EventLoop/beginLinger(_:)``), as the last lingering choice of
    /// its address: it has lingered the shortest. Nothing once the walk is ``maxAge`` old: the next newcomer walks the
    /// table again, so the candidates never grow past what one ``maxAge`` of answers adds.
    mutating func noteLingering(_ connection: Connection, now: UInt64) {
        guard now &- gathered < Self.maxAge else { return }
        let slot = Self.slot(of: connection.peer, in: &addresses, &slots)
        addresses[slot].lingering.insert(connection, at: 0)
    }

    /// Whether idle `a` goes before idle `b`: one that never sent a byte first, then the longest idle.
    private static func idleOrder(_ a: Connection, _ b: Connection) -> Bool {
        if a.receivedAny != b.receivedAny { return !a.receivedAny }
        return a.lastActivity < b.lastActivity
    }

    /// The connection to give up for a new one from `newcomer`, taken out of the candidates, or `nil`:
    /// 1. an idle one, from the address with the most open connections, the newcomer's own included; never one of an
    ///    address with fewer connections than the newcomer's (a heavy client does not push out a lighter one);
    /// 2. else a connection that was answered and is only lingering before its close (its answer, a refusal such as a
    ///    stream over its budget, is written: closing it loses nothing but the wait), then a request still being
    ///    received (its head or its body), each on a connection of an address that holds more than twice as many
    ///    connections as `newcomer`'s, from the address that holds the most, the one that has been in its state longest
    ///    first. Clients that trickle their heads or bodies from many connections then cannot keep a lighter address
    ///    out for as long as their deadlines allow (30 s for a body); the request closed loses only bytes that were
    ///    never answered (RFC 9112 §9.6 lets a server close at any time), and addresses of like weight never push each
    ///    other's requests out.
    ///
    /// `isOpen` says whether a candidate is still the connection open on its descriptor; `now` is the loop's turn.
    mutating func toCloseForNewcomer(_ newcomer: Peer, now: UInt64, isOpen: (Connection) -> Bool) -> Connection? {
        let idle = best(
            \.idle, before: Self.idleOrder, eligible: { $0 === newcomer || $0.open > newcomer.open },
            current: { isOpen($0) && $0.isIdle && ($0.receivedAny || $0.lastActivity != now) })
        if let idle { return idle }
        let heavier: (Peer) -> Bool = { $0 !== newcomer && $0.open > 2 * newcomer.open }
        let byAge: (Connection, Connection) -> Bool = { $0.phaseStart < $1.phaseStart }
        let lingering = best(
            \.lingering, before: byAge, eligible: heavier, current: { isOpen($0) && $0.isLingering })
        if let lingering { return lingering }
        return best(\.receiving, before: byAge, eligible: heavier, current: { isOpen($0) && $0.isReceivingRequest })
    }

    /// Of the eligible addresses' lists at `list`, the first connection of the address with the most open connections
    /// (ties: the connection that goes `before` the other), removed from its list; candidates no longer `current` are
    /// dropped on the way.
    private mutating func best(
        _ list: WritableKeyPath<OfAddress, [Connection]>, before: (Connection, Connection) -> Bool,
        eligible: (Peer) -> Bool, current: (Connection) -> Bool
    ) -> Connection? {
        var chosen: Int?
        for slot in addresses.indices where eligible(addresses[slot].peer) {
            while let last = addresses[slot][keyPath: list].last, !current(last) {
                addresses[slot][keyPath: list].removeLast()
            }
            guard let candidate = addresses[slot][keyPath: list].last else { continue }
            guard let current = chosen, let incumbent = addresses[current][keyPath: list].last else {
                chosen = slot
                continue
            }
            let (open, currentOpen) = (addresses[slot].peer.open, addresses[current].peer.open)
            if open > currentOpen || (open == currentOpen && before(candidate, incumbent)) { chosen = slot }
        }
        guard let chosen else { return nil }
        return addresses[chosen][keyPath: list].popLast()
    }
}
