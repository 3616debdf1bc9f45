#if canImport(CMalloc)
import CMalloc
#endif

/// Giving freed heap back to the kernel for ``EventLoop`` once many connections have left.
///
/// glibc keeps freed memory in each thread's arena for reuse and returns the top of an arena to the
/// kernel only past `M_TRIM_THRESHOLD` (`mallopt(3)`; `tipjar serve` raises it to 32 MiB so that
/// SQLite's write transactions do not give pages back and fault them in again each time). After a
/// crowd of clients (thousands of event streams, say) leaves, what their connections, requests and
/// renders used is free but stays mapped in every arena that served them, hundreds of MiB in all.
/// `malloc_trim(0)` (`malloc_trim(3)`) releases the free pages of every arena, inside the heap too.
extension EventLoop {
    /// A trim follows a drop of at least this many open connections...
    static let departureBeforeTrim = 256
    /// ...to at most this fraction (1/n) of the most open since the last trim.
    static let trimFraction = 4

    /// Called from ``sweep()``: after the open connections fell from their peak since the last trim
    /// by ``departureBeforeTrim`` and to at most 1/``trimFraction`` of it, trims the heap once, a
    /// second later (so the responders and stream producers of the connections that left have
    /// finished and freed what they held), off the event loop's thread.
    func releaseFreedMemoryAfterDeparture() {
        peakOpenSinceTrim = max(peakOpenSinceTrim, openCount)
        guard peakOpenSinceTrim - openCount >= Self.departureBeforeTrim,
            openCount * Self.trimFraction <= peakOpenSinceTrim
        else { return }
        peakOpenSinceTrim = openCount
        counters.heapTrims += 1
        #if canImport(CMalloc)
        Task.detached(priority: .utility) {
            try? await Task.sleep(for: .seconds(1))
            _ = malloc_trim(0)
        }
        #endif
    }
}
