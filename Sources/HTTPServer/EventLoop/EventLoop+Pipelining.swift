/// Pipelined requests for ``EventLoop``: a request the client sent before reading the answer to
/// its previous one goes to the responder only while fewer than ``pipelinedLimit`` such requests
/// are there. Requests that arrive after their connection's previous answer went out (what browsers
/// and ordinary clients send, RFC 9112 §9.3.2 permits pipelining but nothing needs it) are
/// dispatched at once, so they never queue behind the pipelined backlog of clients that send far
/// ahead, such as 4,000 connections that pipeline and never read.
extension EventLoop {
    /// At most this many pipelined requests are with the responder at a time.
    static let pipelinedLimit = 16

    func enqueuePipelined(_ connection: Connection) {
        connection.queued = true
        pipelineQueue.append(connection)
        dispatchPipelined()
    }

    /// Hands queued connections their turn, oldest first, while there is room: those queued when it starts.
    /// A connection that queues again during its turn (its answer was given on this thread, ``answersImmediately(_:_:_:)``,
    /// and more of its pipelined requests wait) is served in the loop's next turn, after `epoll` was asked
    /// what else is ready, so no connection keeps the thread (or the stack) to itself.
    func dispatchPipelined() {
        guard !isDispatchingPipelined else { return }
        isDispatchingPipelined = true
        defer { isDispatchingPipelined = false }
        let end = pipelineQueue.count
        while pipelinedInFlight < Self.pipelinedLimit && pipelineHead < end {
            let connection = pipelineQueue[pipelineHead]
            pipelineHead += 1
            guard !isClosed(connection), connection.queued else { continue }
            connection.queued = false
            processInput(connection, pipelined: true)
        }
        if pipelineHead == pipelineQueue.count {
            pipelineQueue.removeAll(keepingCapacity: pipelineQueue.count <= 1024)
            pipelineHead = 0
        } else if pipelineHead >= 1024 && pipelineHead * 2 >= pipelineQueue.count {
            pipelineQueue.removeFirst(pipelineHead)
            pipelineHead = 0
        }
    }
}
