/// Why a ``TipJarStorage`` cannot do a unit of work right now. Nothing of that unit was kept: the
/// caller may tell the person to wait (``locked``), to free space (``diskFull``) or to restart
/// (``fileMoved``), and a server answers 503 instead of acknowledging a write that could not survive.
///
/// A storage either throws this or throws its own error type that conforms to
/// ``StorageFailure``, saying which of these cases its error is (the SQLite adapter maps its
/// result codes, <https://www.sqlite.org/rescode.html>, this way).
public enum StorageUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process holds the store's lock longer than the store waits for it (SQLite's `SQLITE_BUSY`).
    case locked
    /// The disk, or the store's size limit, is full (`SQLITE_FULL`).
    case diskFull
    /// The store's file is damaged (`SQLITE_CORRUPT`).
    case damaged
    /// The file at `path` (the store's file or one that belongs to it, such as SQLite's `-wal`) was deleted,
    /// renamed or replaced while open, so no write is acknowledged any more
    /// (<https://www.sqlite.org/rescode.html#readonly_dbmoved>); `nil` when the storage does not know the path.
    case fileMoved(path: String?)
    /// The store's file, its folder or its connection is read-only (`SQLITE_READONLY`).
    case readOnly

    /// A short English phrase, e.g. `storage unavailable: disk full`.
    public var description: String {
        switch self {
        case .locked: "storage unavailable: locked by another process"
        case .diskFull: "storage unavailable: disk full"
        case .damaged: "storage unavailable: damaged"
        case .fileMoved(let path): "storage unavailable: \(path ?? "its file") was moved"
        case .readOnly: "storage unavailable: read-only"
        }
    }

    /// Whether this is ``fileMoved(path:)``.
    public var isFileMoved: Bool {
        if case .fileMoved = self { return true }
        return false
    }

    /// The unavailability `error` reports: itself, or what a ``StorageFailure`` says; `nil` for any other
    /// error (a bug, a constraint a caller broke), which is not the storage being unavailable.
    public static func of(_ error: any Error) -> StorageUnavailable? {
        (error as? any StorageFailure)?.unavailable
    }

    /// What the storage found, when `error` says more than its case (``StorageFailure/detail``); `nil` otherwise.
    public static func detail(of error: any Error) -> String? {
        (error as? any StorageFailure)?.detail
    }
}

/// A storage's own error type that can say whether it means the storage is unavailable.
public protocol StorageFailure: Error {
    /// The case this error is, or `nil` when it does not mean the storage is unavailable.
    var unavailable: StorageUnavailable? { get }
    /// What the storage found, in sentences a person can act on (a damaged file: what its check found, and how to
    /// list every problem), when it knows more than its case says; `nil` otherwise. Never holds stored values.
    var detail: String? { get }
}

extension StorageFailure {
    /// `nil`: the case says it all.
    public var detail: String? { nil }
}

extension StorageUnavailable: StorageFailure {
    /// Itself.
    public var unavailable: StorageUnavailable? { self }
}
