import CSQLite
import Foundation

/// Validates a database file (and its `-wal`) **before** any write or pragma that
/// could modify it, so that a bad database file is never made worse.
///
/// Checks, in order (each failure throws a ``DatabaseError`` whose message names the file):
/// 1. Unless opening read-only: the file and its folder are writable. Tests run as root,
///    which bypasses permission bits in `access(2)`, so the guard also treats a file or
///    folder **with no write bit at all** (e.g. `chmod a-w`) as a deliberate "read-only"
///    marking by the operator and refuses it (`SQLITE_READONLY`).
/// 2. A non-empty file starts with the 16 bytes `"SQLite format 3\0"`, has a valid page
///    size, and its size is a whole number of pages (`SQLITE_NOTADB` / `SQLITE_CORRUPT`).
///    See <https://www.sqlite.org/fileformat2.html#the_database_header>.
/// 3. A non-empty `-wal` file has a valid header (magic 0x377f0682/0x377f0683, version
///    3007000, the database's page size, header checksum) and a first frame whose salts
///    match the header and whose checksum is valid (<https://www.sqlite.org/fileformat2.html#walformat>).
///    A `-wal` beside a missing or empty database is refused: SQLite would delete it.
/// 4. The file, opened with `SQLITE_OPEN_READONLY` (which reads but never checkpoints
///    the WAL), passes `PRAGMA quick_check`, and `schema_version` is readable.
/// 5. The database identity stamp (a random non-zero `PRAGMA user_version` written when
///    the database is created, see ``DatabaseQueue``) read through the WAL equals the one
///    in the file header. SQLite itself has no way to tell that a well-formed WAL belongs to
///    another database: it silently replays it (verified with SQLite 3.40) and would
///    checkpoint foreign pages into this file. A foreign WAL that never touched page 1
///    cannot be recognised by the stamp; check 4 then catches most mismatches.
///
/// Known false positive: after a power loss that tears the very first frame of a new WAL
/// generation, check 3 refuses a WAL that only held uncommitted data. The operator must
/// then move the `-wal` aside by hand. This is deliberate: refusing is always safe.
enum DatabaseFileGuard {
    static let sqliteMagic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    struct Report {
        /// `false` when the file is missing or empty (a new database will be created).
        var hasContent: Bool
        var schemaVersion: Int64?
    }

    static func validate(path: String, readOnly: Bool) throws -> Report {
        let walPath = path + "-wal"
        let fileInfo = try statIfExists(path)
        let walInfo = try statIfExists(walPath)
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent

        if let fileInfo, fileInfo.st_mode & S_IFMT != S_IFREG {
            throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "\(path) is not a regular file", path: path)
        }
        if !readOnly {
            try requireWritable(folder, what: "folder \(folder) holding the database \(path)", path: path,
                                reason: "SQLite must create \((walPath as NSString).lastPathComponent) and -shm files beside the database")
            if let fileInfo { try requireWritable(path, info: fileInfo, what: "database file \(path)", path: path, reason: "tips cannot be recorded") }
            if let walInfo { try requireWritable(walPath, info: walInfo, what: "write-ahead log \(walPath)", path: walPath, reason: "tips cannot be recorded") }
        } else if fileInfo == nil {
            throw DatabaseError(extendedResultCode: SQLITE_CANTOPEN, message: "cannot open \(path) read-only: the file does not exist", path: path)
        }

        let fileSize = Int(fileInfo?.st_size ?? 0)
        let walSize = Int(walInfo?.st_size ?? 0)
        guard fileSize > 0 else {
            if walSize > 0 {
                throw DatabaseError(extendedResultCode: SQLITE_NOTADB, message: "\(walPath) exists but its database \(path) is missing or empty; refusing to open (SQLite would delete the write-ahead log)", path: walPath)
            }
            return Report(hasContent: false, schemaVersion: nil)
        }

        let header = try readBytes(path, count: 100)
        guard header.count >= 100, Array(header[0..<16]) == sqliteMagic else {
            throw DatabaseError(extendedResultCode: SQLITE_NOTADB, message: "\(path) is not an SQLite database: its first 16 bytes are not \"SQLite format 3\\0\"; refusing to open it", path: path)
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw DatabaseError(extendedResultCode: SQLITE_NOTADB, message: "\(path) is not an SQLite database: invalid page size \(rawPageSize) in its header", path: path)
        }
        guard fileSize % pageSize == 0 else {
            throw DatabaseError(extendedResultCode: SQLITE_CORRUPT, message: "\(path) is truncated or damaged: its size \(fileSize) is not a multiple of its page size \(pageSize); refusing to open it", path: path)
        }
        let fileIdentity = bigEndianUInt32(header, 60)

        if walSize > 0 { try validateWAL(walPath, databasePath: path, pageSize: pageSize, size: walSize) }

        // Read-only pass: SQLITE_OPEN_READONLY never writes the database nor checkpoints the WAL.
        // Without a WAL to read, `immutable=1` also keeps SQLite from creating empty -wal/-shm
        // sidecars beside a file we may refuse (a concurrent writer could only make the probe
        // see an inconsistent file, i.e. refuse: the safe direction). With a WAL, SQLite may
        // create the -shm index it needs to read it.
        var schemaVersion: Int64?
        var viewIdentity: UInt32 = 0
        do {
            let probe = walSize > 0
                ? try Database(path: path, flags: SQLITE_OPEN_READONLY)
                : try Database(path: immutableURI(path), flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
            defer { try? probe.close() }
            schemaVersion = try probe.fetchValue(sql: "PRAGMA schema_version", as: Int64.self)
            let problems = try probe.fetchAll(sql: "PRAGMA quick_check") { try $0.value(at: 0, as: String.self) }
            guard problems == ["ok"] else {
                throw DatabaseError(extendedResultCode: SQLITE_CORRUPT, message: "\(path) failed PRAGMA quick_check (\(problems.count) problem(s), first: \(problems.first ?? "no answer")); refusing to open it", path: path)
            }
            viewIdentity = UInt32(bitPattern: Int32(truncatingIfNeeded: try probe.fetchValue(sql: "PRAGMA user_version", as: Int64.self) ?? 0))
        } catch let error as DatabaseError where error.path != path {
            let subject = walSize > 0 ? "\(path) (with its write-ahead log \(walPath))" : path
            throw DatabaseError(extendedResultCode: error.extendedResultCode, message: "\(subject) cannot be read safely: \(error.message); refusing to open it", sql: error.sql, path: path)
        }
        if walSize > 0, fileIdentity != 0, viewIdentity != fileIdentity {
            throw DatabaseError(extendedResultCode: SQLITE_NOTADB, message: "\(walPath) belongs to another database: it changes the database identity stamp (PRAGMA user_version) from \(fileIdentity) to \(viewIdentity); refusing to open \(path)", path: walPath)
        }
        return Report(hasContent: true, schemaVersion: schemaVersion)
    }

    /// Validates the WAL header and first frame. See <https://www.sqlite.org/fileformat2.html#walformat>.
    static func validateWAL(_ walPath: String, databasePath: String, pageSize: Int, size: Int) throws {
        func refuse(_ reason: String) -> DatabaseError {
            DatabaseError(extendedResultCode: SQLITE_NOTADB, message: "\(walPath) is not a valid write-ahead log for \(databasePath): \(reason); refusing to open (SQLite would silently discard or overwrite it)", path: walPath)
        }
        let frameSize = 24 + pageSize
        let bytes = try readBytes(walPath, count: 32 + frameSize)
        guard bytes.count >= 32 else { throw refuse("its header is truncated (\(bytes.count) bytes)") }
        let magic = bigEndianUInt32(bytes, 0)
        guard magic == 0x377f0682 || magic == 0x377f0683 else { throw refuse("bad magic number") }
        let bigEndianChecksums = magic & 1 == 1
        guard bigEndianUInt32(bytes, 4) == 3_007_000 else { throw refuse("unsupported WAL format version") }
        let walPageSize = Int(bigEndianUInt32(bytes, 8))
        guard walPageSize == pageSize else { throw refuse("its page size \(walPageSize) differs from the database page size \(pageSize)") }
        var checksum = walChecksum(bytes[0..<24], bigEndian: bigEndianChecksums, seed: (0, 0))
        guard checksum.0 == bigEndianUInt32(bytes, 24), checksum.1 == bigEndianUInt32(bytes, 28) else {
            throw refuse("its header checksum is wrong")
        }
        // A first frame that was not completely written never committed anything.
        guard bytes.count >= 32 + frameSize else { return }
        let frame = 32
        guard bigEndianUInt32(bytes, frame + 8) == bigEndianUInt32(bytes, 16),
              bigEndianUInt32(bytes, frame + 12) == bigEndianUInt32(bytes, 20) else {
            throw refuse("its first frame's salts do not match its header")
        }
        checksum = walChecksum(bytes[frame..<(frame + 8)], bigEndian: bigEndianChecksums, seed: checksum)
        checksum = walChecksum(bytes[(frame + 24)..<(frame + frameSize)], bigEndian: bigEndianChecksums, seed: checksum)
        guard checksum.0 == bigEndianUInt32(bytes, frame + 16), checksum.1 == bigEndianUInt32(bytes, frame + 20) else {
            throw refuse("its first frame's checksum is wrong")
        }
    }

    /// The WAL checksum: for each pair of 32-bit words x0, x1: s0 += x0 + s1; s1 += x1 + s0.
    static func walChecksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var index = bytes.startIndex
        while index + 8 <= bytes.endIndex {
            let x0 = word(bytes, index, bigEndian: bigEndian)
            let x1 = word(bytes, index + 4, bigEndian: bigEndian)
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            index += 8
        }
        return (s0, s1)
    }

    private static func word(_ bytes: ArraySlice<UInt8>, _ index: Int, bigEndian: Bool) -> UInt32 {
        let b = (UInt32(bytes[index]), UInt32(bytes[index + 1]), UInt32(bytes[index + 2]), UInt32(bytes[index + 3]))
        return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
    }

    static func bigEndianUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        word(bytes[...], offset, bigEndian: true)
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
