import Testing

@testable import HTTPServer

/// The candidates a full table gives up for a newcomer between two walks of the table (``ClosableConnections``): a
/// connection that begins lingering after a walk is one of them at once, so a flood whose clients close what one walk
/// found cannot hold a full table of answered connections against a lighter address until the next walk.
@Suite("Closable connections")
struct ClosableConnectionsTests {
    /// A connection of `peer`, counted in its open connections, answered and lingering before its close since `now`.
    static func lingering(_ peer: Peer, fd: Int32, now: UInt64) -> Connection {
        let connection = Connection(
            fd: fd, serial: UInt64(fd), remoteAddress: peer.key + ":1", peer: peer, parser: HTTPRequestParser(), now: now,
            shed: false)
        connection.state = .lingering(deadline: now + 2_000_000_000)
        peer.open += 1
        return connection
    }

    @Test func aConnectionThatBeginsLingeringAfterTheWalkIsGivenUpForALighterNewcomer() {
        let heavy = Peer(key: "127.0.0.2")
        let newcomer = Peer(key: "127.0.0.3")
        let walked = (0..<4).map { Self.lingering(heavy, fd: 10 + Int32($0), now: 1) }
        var candidates = ClosableConnections(walked, now: 1)
        // The walk's connections close (their clients read the 503 and hang up); two more are answered and linger.
        heavy.open -= walked.count
        let later = (0..<2).map { Self.lingering(heavy, fd: 20 + Int32($0), now: 5) }
        let open = Set(later.map(ObjectIdentifier.init))
        var withoutNote = candidates
        #expect(withoutNote.toCloseForNewcomer(newcomer, now: 6) { open.contains(ObjectIdentifier($0)) } == nil)
        for connection in later { candidates.noteLingering(connection, now: 5) }
        let victim = candidates.toCloseForNewcomer(newcomer, now: 6) { open.contains(ObjectIdentifier($0)) }
        #expect(victim === later[0], "the one lingering longest of those that are still open")
    }

    @Test func aWalkOlderThanItsAgeTakesNoNewCandidatesAndTheNextNewcomerWalksAgain() {
        let heavy = Peer(key: "127.0.0.2")
        let newcomer = Peer(key: "127.0.0.3")
        var candidates = ClosableConnections([Self.lingering(heavy, fd: 10, now: 1)], now: 1)
        let late = Self.lingering(heavy, fd: 11, now: 1 + ClosableConnections.maxAge)
        candidates.noteLingering(late, now: 1 + ClosableConnections.maxAge)
        #expect(candidates.toCloseForNewcomer(newcomer, now: 2 + ClosableConnections.maxAge) { $0 === late } == nil)
    }

    @Test func aNewcomerOfLikeWeightGetsNoConnectionThatBeganLingeringAfterTheWalk() {
        let first = Peer(key: "127.0.0.2")
        let second = Peer(key: "127.0.0.3")
        var candidates = ClosableConnections([Self.lingering(first, fd: 10, now: 1)], now: 1)
        _ = Self.lingering(second, fd: 11, now: 1)
        let late = Self.lingering(first, fd: 12, now: 2)
        candidates.noteLingering(late, now: 2)
        // 127.0.0.2 holds two, 127.0.0.3 one: not more than twice as many, so neither pushes the other out.
        #expect(candidates.toCloseForNewcomer(second, now: 3) { _ in true } == nil)
    }
}
