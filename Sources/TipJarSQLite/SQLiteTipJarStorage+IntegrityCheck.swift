import SQLiteDatabase
import CSQLite
import Foundation
import TipJar

/// How a background `PRAGMA integrity_check` of the storage's file ended
/// (``SQLiteTipJarStorage/checkIntegrityInBackground(cpuShare:completion:)``).
public enum IntegrityCheckOutcome: Sendable {
    /// The file is sound; the check took `seconds`.
    case passed(seconds: Double)
    /// The check found `problems` (its lines, at most 100, SQLite's default) after `seconds`; the storage now fails
    /// every read and write with `error` (`SQLITE_CORRUPT`, the core's ``StorageUnavailable/damaged``).
    case damaged(problems: [String], seconds: Double, error: DatabaseError)
    /// The check could not run to its end (the storage closed meanwhile: `SQLITE_INTERRUPT`, or the file could not
    /// be read); the storage goes on as before.
    case stopped(any Error)
}

extension SQLiteTipJarStorage {
    /// Checks every page of the file in the background, at most `cpuShare` of one core
    /// (``DatabasePool/checkIntegrityInBackground(cpuShare:completion:)``), for a start that skipped the check (a
    /// clean stop): a damaged index would otherwise answer part of its rows, silently. On damage, every read and
    /// write of the storage fails from then on with a `SQLITE_CORRUPT` error naming the file, what the check found and
    /// the command that lists every problem (``StorageUnavailable/damaged``, its ``DatabaseError/detail``), and the
    /// change log counts a change of everything, so nothing kept from an earlier read (a cached page) is answered again.
    /// `completion` runs on the check's thread.
    public func checkIntegrityInBackground(cpuShare: Double = 0.5, completion: @escaping @Sendable (IntegrityCheckOutcome) -> Void) {
        let started = ContinuousClock.now
        let path = pool.path
        pool.checkIntegrityInBackground(cpuShare: cpuShare) { [pool, changeLog] result in
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            switch result {
            case .success(let problems) where problems.isEmpty:
                completion(.passed(seconds: seconds))
            case .success(let problems):
                let error = Self.damage(path: path, problems: problems)
                pool.refuseAll(with: error)
                changeLog.changedEverything()
                completion(.damaged(problems: problems, seconds: seconds, error: error))
            case .failure(let error):
                completion(.stopped(error))
            }
        }
    }

    /// The error every read and write fails with once `problems` were found in the file at `path`.
    static func damage(path: String, problems: [String]) -> DatabaseError {
        let count = problems.count >= 100 ? "100 or more problems" : problems.count == 1 ? "1 problem" : "\(problems.count) problems"
        return DatabaseError(
            extendedResultCode: SQLITE_CORRUPT,
            message:
                "The database \(path) is damaged: PRAGMA integrity_check found \(count), first: \(problems[0]). "
                + "Nothing is read from it or written to it until the server restarts; stop the server: "
                + "tipjar check-database \(path) lists every problem.",
            path: path)
    }
}
