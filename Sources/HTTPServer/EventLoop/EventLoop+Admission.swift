#if canImport(Glibc)
import Glibc
#endif

/// Accepting connections for ``EventLoop``: the global and per-address caps, and freeing a slot
/// held by an idle connection when the table is full.
extension EventLoop {
    /// Most connections taken from the listening socket's queue at one wake-up of the loop: about twice the kernel's
    /// backlog, so an ordinary burst is taken whole and the queue has room for the next client's SYN, while a client that
    /// reconnects as fast as it is accepted cannot keep the loop in `accept4` for ever.
    static let acceptBatch = 1_024

    /// Longest one batch of accepts may take before the loop turns to the events of the connections already open:
    /// 2 ms, in nanoseconds. Each accept of a flood that is refused costs a 503 written and a close; a whole batch of
    /// them would hold every open connection's request waiting (figures: `Tests/Benchmarks/README.md`).
    static let acceptBatchTime: UInt64 = 2_000_000

    /// Accepts waiting connections, at most ``acceptBatch`` of them: the listening socket is level-triggered, so
    /// the rest are reported at the next wake-up, after the events of the connections already open. A connection
    /// accepted in this same turn is never closed to make room for the next one (``ClosableConnections``): its
    /// request has not been read yet, and closing it unread let a flood that reconnects as fast as it is accepted keep
    /// the loop accepting and closing without ever reading a request.
    func acceptWaiting() {
        let started = Socket.now()
        for accepted in 0..<Self.acceptBatch {
            if accepted % 16 == 15 && Socket.now() &- started >= Self.acceptBatchTime { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    SystemCalls.accept4(listenFD, $0, &length)
                }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { pauseAccepting() }
                return  // EAGAIN: none waiting
            }
            var one: Int32 = 1
            setsockopt(fd, SystemCalls.IPPROTO_TCP, SystemCalls.TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // The kernel queues at most this much not-yet-sent output per connection: `sendmsg`
            // stops short and EPOLLOUT waits until it drains (TCP_NOTSENT_LOWAT,
            // https://docs.kernel.org/networking/ip-sysctl.html#tcp-variables). A client that does
            // not read then holds one response here instead of as many as the kernel's send buffer
            // (autotuned up to 4 MiB) would take, each of them produced for nothing.
            var lowWatermark = Int32(SystemCalls.notSentLowWatermark)
            setsockopt(fd, SystemCalls.IPPROTO_TCP, SystemCalls.TCP_NOTSENT_LOWAT, &lowWatermark, socklen_t(MemoryLayout<Int32>.size))
            let address = Socket.addressAndPort(storage)
            let key = Socket.peerKey(storage, address: address.address)
            let peer = peers[key] ?? Peer(key: key)
            let shed = !admit(peer)
            if shed && shedCount >= configuration.maxShedConnections {
                close(fd)
                continue
            }
            serial &+= 1
            let parser = HTTPRequestParser(limits: configuration.limits, normalizedHosts: allowedHosts)
            let connection = Connection(
                fd: fd, serial: serial, remoteAddress: address.address + ":" + String(address.port),
                peer: peer, parser: parser, now: now, shed: shed)
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count + 64))
            }
            connections[Int(fd)] = connection
            if shed {
                shedCount += 1
            } else {
                openCount += 1
                if peer.open == 0 { peers[key] = peer }
                peer.open += 1
            }
            SystemCalls.epollAdd(epfd, fd, events: SystemCalls.EPOLLIN | SystemCalls.EPOLLOUT | SystemCalls.EPOLLRDHUP | SystemCalls.EPOLLET)
            if shed {
                startWrite(connection, shedResponse(), close: true)
            }
        }
    }

    /// Load shedding: a canned 503 instead of falling over (RFC 9110 §15.6.4), serialized once per second.
    func shedResponse() -> ResponseSerializer.Output {
        let dateLine = date.fieldLine()
        if let shedAnswer, shedAnswer.dateLine == dateLine { return shedAnswer.output }
        var response = HTTPResponse.status(.serviceUnavailable)
        response.fields["Retry-After"] = "1"
        let output = ResponseSerializer.serialize(
            response, isHead: false, keepAlive: false, http10: false, dateLine: dateLine, defaults: configuration.responseDefaults)
        shedAnswer = (dateLine, output)
        return output
    }

    /// Out of descriptors (or kernel memory): the pending connection stays queued and the listening
    /// socket stays readable, so a level-triggered epoll would report it again at once and the
    /// loop would spin. It leaves the epoll set for ``acceptPause`` instead (accept(2): EMFILE,
    /// ENFILE, ENOBUFS, ENOMEM), and ``resumeAcceptingIfDue()`` brings it back.
    func pauseAccepting() {
        guard acceptResumeTime == nil else { return }
        counters.acceptPausedOutOfDescriptors += 1
        SystemCalls.epollDelete(epfd, listenFD)
        acceptResumeTime = now &+ Self.acceptPause
    }

    /// How long accepting pauses when out of descriptors: 100 ms, in nanoseconds.
    static let acceptPause: UInt64 = 100_000_000

    /// Puts the listening socket back in the epoll set once the pause is over, and accepts.
    func resumeAcceptingIfDue() {
        guard let resume = acceptResumeTime, now >= resume else { return }
        acceptResumeTime = nil
        guard listening else { return }
        SystemCalls.epollAdd(epfd, listenFD, events: SystemCalls.EPOLLIN)
        acceptWaiting()
    }

    /// Whether a new connection from `peer` gets a slot. Over the per-address cap it does not; when
    /// the table is full, a connection of a heavier address is closed to make room
    /// (``ClosableConnections/toCloseForNewcomer(_:now:isOpen:)``), from the candidates of the table's last walk.
    func admit(_ peer: Peer) -> Bool {
        if peer.open >= configuration.maxConnectionsPerAddress {
            counters.refusedOverAddressCap += 1
            return false
        }
        guard openCount >= configuration.maxConnections else { return true }
        // What changes in a turn is its own accepts, which are never closed to make room: an address with no room
        // once has none until the next turn.
        if peer.noRoomTurn == now { return false }
        if closable == nil || now &- closable!.gathered >= ClosableConnections.maxAge {
            closable = ClosableConnections(connections, now: now)
        }
        let victim = closable?.toCloseForNewcomer(peer, now: now) { [connections] candidate in
            Int(candidate.fd) < connections.count && connections[Int(candidate.fd)] === candidate
        }
        guard let victim else {
            peer.noRoomTurn = now
            return false
        }
        if victim.isIdle {
            counters.closedIdleForNewConnection += 1
        } else if victim.isLingering {
            counters.closedLingeringForNewConnection += 1
        } else {
            counters.closedPartialRequestForNewConnection += 1
        }
        closeConnection(victim)
        return true
    }

    /// A snapshot for ``HTTPServer/statistics()``.
    func statistics() -> ConnectionStatistics {
        var stats = ConnectionStatistics(
            open: openCount, shed: shedCount, unsentOutputBytes: unsentOutputBytes,
            counters: counters, pipelinedInFlight: pipelinedInFlight,
            pipelinedWaiting: pipelineQueue[pipelineHead...].filter { $0.queued && !isClosed($0) }.count)
        for case let connection? in connections {
            stats.inputBufferBytes += connection.parser.heldByteCount
            stats.largestInputBuffer = max(stats.largestInputBuffer, connection.parser.heldByteCount)
            if connection.isReceivingRequest { stats.receivingRequests += 1 }
        }
        stats.openStreams = openStreams
        for (key, peer) in peers { stats.openByAddress[key] = peer.open }
        return stats
    }
}

/// What the event loop holds and has done, for tests and diagnostics.
struct ConnectionStatistics: Sendable {
    /// Counts since start.
    struct Counters: Sendable {
        /// New connections answered 503 because their address was at its cap.
        var refusedOverAddressCap = 0
        /// Idle connections closed to make room for a new one in a full table.
        var closedIdleForNewConnection = 0
        /// Answered connections lingering before their close, closed to make room for a new connection from a lighter address.
        var closedLingeringForNewConnection = 0
        /// Requests still being received (head or body) closed to make room for a new connection from a lighter address.
        var closedPartialRequestForNewConnection = 0
        /// Connections reset because unsent output was over the total cap.
        var resetForOutputMemory = 0
        /// Connections closed because they sent no byte within the first-byte timeout.
        var closedWithoutFirstByte = 0
        /// Times accepting paused because `accept4` ran out of descriptors.
        var acceptPausedOutOfDescriptors = 0
        /// Streams answered 503 because they, or their address, were at the stream budget.
        var refusedStreamOverBudget = 0
        /// Streams reset because the bytes queued for their client passed their backlog cap.
        var resetStreamOverBacklog = 0
        /// Times the freed heap was handed back to the kernel after connections left.
        var heapTrims = 0
        /// Requests the responder answered at once on the I/O thread (``ImmediateResponder``).
        var answeredOnLoop = 0
    }

    /// Open connections (not counting shed ones).
    var open: Int
    /// Of those, the ones writing a stream.
    var openStreams = 0
    /// Connections being answered 503 over a cap.
    var shed: Int
    /// Owned bytes of unsent responses.
    var unsentOutputBytes: Int
    var counters: Counters
    /// Pipelined requests with the responder.
    var pipelinedInFlight: Int
    /// Connections waiting with a pipelined request for a responder slot.
    var pipelinedWaiting: Int
    /// Parser buffers and bodies under construction, all connections, bytes of storage.
    var inputBufferBytes = 0
    /// The largest of those for one connection.
    var largestInputBuffer = 0
    /// Connections with a request partly received (``Connection/isReceivingRequest``).
    var receivingRequests = 0
    /// Open connections by client address key.
    var openByAddress: [String: Int] = [:]
}
