import Synchronization

/// In-memory cache of static file contents, shared by copies of a ``StaticFiles`` value.
/// Files are read once; later requests are served from memory (files are small assets).
final class StaticFileCache: Sendable {
    /// One cached file.
    struct Entry: Sendable {
        let body: [UInt8]
        let etag: String
        let contentType: String
        /// The file's two answers, prepared once when it is cached (``StaticFiles/immediateAnswer(_:)``).
        var answers: Answers?
    }

    /// A file's 200 with its bytes and its `304 Not Modified`. A class: an entry is copied out of the table for every
    /// request, and this costs it one retain instead of one per array the answers hold.
    final class Answers: Sendable {
        let ok: PreparedResponse
        let notModified: PreparedResponse

        init(ok: PreparedResponse, notModified: PreparedResponse) {
            self.ok = ok
            self.notModified = notModified
        }
    }

    /// Path → entry. `Mutex` makes the class Sendable without `@unchecked`.
    private let entries = Mutex<(map: [String: Entry], bytes: Int)>((map: [:], bytes: 0))
    /// Upper bound on cached bytes; files beyond it are served uncached. Bytes.
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func lookup(_ path: String) -> Entry? {
        entries.withLock { $0.map[path] }
    }

    /// Caches `entry` unless `path` is cached already or it does not fit.
    /// - Returns: whether `entry` itself is now the cached one (so its bytes live as long as the cache).
    @discardableResult
    func store(_ entry: Entry, for path: String) -> Bool {
        entries.withLock { state in
            guard state.map[path] == nil, state.bytes + entry.body.count <= capacity else { return false }
            state.map[path] = entry
            state.bytes += entry.body.count
            return true
        }
    }
}
