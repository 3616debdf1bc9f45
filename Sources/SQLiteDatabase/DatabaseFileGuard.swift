import CSQLite
import Foundation

/// Checks a database file (and its `-wal`) **before** any write or pragma that could modify it,
/// so that a bad database file is never made worse.
///
/// Checks, in order (each failure throws a ``DatabaseError`` whose message names the file):
/// 1. Unless opening read-only: the file and its folder are writable. Tests run as root,
///    which bypasses permission bits in `access(2)`, so the guard also treats a file or
///    folder **with no write bit at all** (e.g. `chmod a-w`) as a deliberate "read-only"
///    marking by the operator and refuses it (`SQLITE_READONLY`).
/// 2. A `-wal` beside a missing or empty database is refused: SQLite would delete it.
/// 3. A non-empty file starts with the 16 bytes `"SQLite format 3\0"` (`SQLITE_NOTADB`), for a
///    clearer message than SQLite's "file is not a database"
///    (<https://www.sqlite.org/fileformat2.html#the_database_header>).
/// 4. The file, opened with `SQLITE_OPEN_READONLY` (which reads but never checkpoints the WAL),
///    passes `PRAGMA integrity_check` (<https://www.sqlite.org/pragma.html#pragma_integrity_check>),
///    which, unlike `quick_check`, also compares every index with its table. SQLite itself decides
///    which WAL frames are valid, exactly as its recovery does before any connection writes
///    (<https://www.sqlite.org/walformat.html>, <https://www.sqlite.org/fileformat2.html#walformat>):
///    a frame counts only while its salts match the WAL header and the running checksums hold,
///    so a WAL left by a crash between writing a new header and its first frame reads as empty.
///    The database size is the header's page count, so bytes after the last page are ignored and
///    a truncated file fails here (`SQLITE_CORRUPT`).
/// 5. The database identity stamp (a random non-zero `PRAGMA user_version` written when
///    the database is created, see ``DatabasePool``) read through the WAL equals the one
///    in the file header. SQLite itself has no way to tell that a well-formed WAL belongs to
///    another database: it silently replays it (verified with SQLite 3.40) and would
///    checkpoint foreign pages into this file. A foreign WAL that never touched page 1
///    cannot be recognised by the stamp; check 4 then catches most mismatches.
enum DatabaseFileGuard {
    static let sqliteMagic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    /// Runs every check and throws on the first failure, a damaged file included.
    static func validate(path: String, readOnly: Bool, checksIntegrity: Bool = true) throws {
        let problems = try inspect(path: path, readOnly: readOnly, checksIntegrity: checksIntegrity)
        if let first = problems.first {
            throw DatabaseError(
                extendedResultCode: SQLITE_CORRUPT,
                message:
                    "\(path) is damaged: PRAGMA integrity_check found \(problems.count == 100 ? "100 or more problems" : problems.count == 1 ? "1 problem" : "\(problems.count) problems"), first: \(first); refusing to open it",
                path: path)
        }
    }

    /// Runs every check; a file that `PRAGMA integrity_check` finds damaged is not thrown but answered
    /// with its problem lines (up to SQLite's default of 100); a sound, missing or empty file answers none.
    /// Without `checksIntegrity` and without a WAL, check 4 is replaced by the header's page count (the "in-header
    /// database size", valid while its version-valid-for number equals the change counter,
    /// <https://www.sqlite.org/fileformat2.html#in_header_database_size>): the file must hold that many pages. With a
    /// WAL the probe still reads the identity stamp, without `PRAGMA integrity_check`.
    static func inspect(path: String, readOnly: Bool, checksIntegrity: Bool = true) throws -> [String] {
        let walPath = path + "-wal"
        let fileInfo = try statIfExists(path)
        let walInfo = try statIfExists(walPath)
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent

        if let fileInfo, fileInfo.st_mode & S_IFMT != S_IFREG {
            throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "\(path) is not a regular file", path: path)
        }
        if !readOnly {
            try requireWritable(
                folder, what: "folder \(folder) holding the database \(path)", path: path,
                reason: "SQLite must create \((walPath as NSString).lastPathComponent) and -shm files beside the database")
            if let fileInfo { try requireWritable(path, info: fileInfo, what: "database file \(path)", path: path, reason: "tips cannot be recorded") }
            if let walInfo { try requireWritable(walPath, info: walInfo, what: "write-ahead log \(walPath)", path: walPath, reason: "tips cannot be recorded") }
        } else if fileInfo == nil {
            throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "cannot open \(path) read-only: the file does not exist", path: path)
        }

        let walSize = Int(walInfo?.st_size ?? 0)
        guard Int(fileInfo?.st_size ?? 0) > 0 else {
            if walSize > 0 {
                throw DatabaseError(
                    extendedResultCode: SQLITE_NOTADB,
                    message: "\(walPath) exists but its database \(path) is missing or empty; refusing to open (SQLite would delete the write-ahead log)", path: walPath)
            }
            return []
        }

        let header = try readBytes(path, count: 100)
        guard header.count >= 100, Array(header[0..<16]) == sqliteMagic else {
            throw DatabaseError(
                extendedResultCode: SQLITE_NOTADB, message: "\(path) is not an SQLite database: its first 16 bytes are not \"SQLite format 3\\0\"; refusing to open it", path: path)
        }
        let fileIdentity = UInt32(header[60]) << 24 | UInt32(header[61]) << 16 | UInt32(header[62]) << 8 | UInt32(header[63])
        // The header's page count is the file's own only without a WAL: a checkpoint a crash interrupted may leave the
        // file shorter than the header that the WAL's copy of page 1 completes, which SQLite's recovery reads as sound.
        if !checksIntegrity, walSize == 0 {
            func number(at offset: Int) -> Int {
                Int(header[offset]) << 24 | Int(header[offset + 1]) << 16 | Int(header[offset + 2]) << 8 | Int(header[offset + 3])
            }
            let rawPageSize = Int(header[16]) << 8 | Int(header[17])
            let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
            let pages = number(at: 28)
            if number(at: 92) == number(at: 24), pages > 0, Int(fileInfo?.st_size ?? 0) < pages * pageSize {
                throw DatabaseError(
                    extendedResultCode: SQLITE_CORRUPT,
                    message:
                        "\(path) is damaged: its header counts \(pages) pages of \(pageSize) bytes but the file holds \(fileInfo?.st_size ?? 0) bytes (truncated); refusing to open it",
                    path: path)
            }
            return []
        }

        // Read-only pass: SQLITE_OPEN_READONLY never writes the database nor checkpoints the WAL.
        // Without a WAL to read, `immutable=1` also keeps SQLite from creating empty -wal/-shm
        // sidecars beside a file we may refuse (a concurrent writer could only make the probe
        // see an inconsistent file, i.e. refuse: the safe direction). With a WAL, SQLite may
        // create the -shm index it needs to read it.
        var problems: [String] = []
        var viewIdentity: UInt32 = 0
        do {
            let probe =
                walSize > 0
                ? try Database(path: path, flags: SQLITE_OPEN_READONLY)
                : try Database(path: immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
            defer { try? probe.close() }
            if checksIntegrity {
                let lines = try probe.fetchAll(sql: "PRAGMA integrity_check") { try $0.value(at: 0, as: String.self) }
                problems = lines == ["ok"] ? [] : lines
            }
            viewIdentity = UInt32(bitPattern: Int32(truncatingIfNeeded: try probe.fetchValue(sql: "PRAGMA user_version", as: Int64.self) ?? 0))
        } catch let error as DatabaseError where error.path != path {
            let subject = walSize > 0 ? "\(path) (with its write-ahead log \(walPath))" : path
            throw DatabaseError(
                extendedResultCode: error.extendedResultCode, message: "\(subject) cannot be read safely: \(error.message); refusing to open it", sql: error.sql, path: path)
        }
        if walSize > 0, fileIdentity != 0, viewIdentity != fileIdentity {
            throw DatabaseError(
                extendedResultCode: SQLITE_NOTADB,
                message:
                    "\(walPath) belongs to another database: it changes the database identity stamp (PRAGMA user_version) from \(fileIdentity) to \(viewIdentity); refusing to open \(path)",
                path: walPath)
        }
        return problems
    }

    /// `file:` URI with `immutable=1` (<https://www.sqlite.org/uri.html>); `%`, `?`, `#` escaped.
    static func immutableURI(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        if escaped.hasPrefix("//") { escaped = "/" + escaped.drop(while: { $0 == "/" }) }
        return "file:\(escaped)?immutable=1"
    }

    private static func statIfExists(_ path: String) throws -> stat? {
        var info = stat()
        if stat(path, &info) == 0 { return info }
        let code = errno
        if code == ENOENT { return nil }
        throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "cannot inspect \(path): \(String(cString: strerror(code)))", path: path)
    }

    private static func requireWritable(_ target: String, info: stat? = nil, what: String, path: String, reason: String) throws {
        var info = info
        if info == nil { info = try statIfExists(target) }
        guard let info else {
            throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "\(what) does not exist", path: path)
        }
        let noWriteBit = info.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH) == 0
        if noWriteBit || access(target, W_OK) != 0 {
            let cause = noWriteBit ? "it has no write permission (mode \(String(info.st_mode & 0o7777, radix: 8)))" : String(cString: strerror(errno))
            throw DatabaseError(extendedResultCode: SQLITE_READONLY, message: "\(what) is read-only: \(cause); \(reason)", path: path)
        }
    }

    private static func readBytes(_ path: String, count: Int) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "cannot read \(path)", path: path)
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw DatabaseError(extendedResultCode: SQLITE_IOERR, message: "cannot read \(path): \(error)", path: path)
        }
    }
}
