import HTTPServer
import TipJar

extension StorageUnavailable {
    /// The 503 a request answers when the storage cannot work now (RFC 9110, section 15.6.4): a title and
    /// a message saying what happened, that nothing was changed, and what to do.
    var problem: (HTTPStatus, String, String) {
        switch self {
        case .fileMoved(let path):
            return (
                .serviceUnavailable, "Database file moved",
                "\(path ?? "The database file") was deleted, renamed or replaced while the server was running. Nothing was changed: a write now could not survive a crash. Restart the server."
            )
        case .damaged:
            return (
                .serviceUnavailable, "Database damaged",
                "The database file is damaged. Nothing was changed; stop the server and run tipjar check-database on the file."
            )
        case .locked:
            return (
                .serviceUnavailable, "Database busy",
                "The database is locked by another process. Nothing was changed; try again in a moment."
            )
        case .diskFull:
            return (.serviceUnavailable, "Disk full", "The database is full. Nothing was changed; free some space and try again.")
        case .readOnly:
            return (.serviceUnavailable, "Read-only database", "The database file is read-only. Nothing was changed.")
        }
    }
}
