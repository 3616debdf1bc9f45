import SQLiteDatabase
import CSQLite
import Foundation
import HTTPServer
import Synchronization
import TipJarSQLite

/// `serve`'s two integrity checks: every page before serving after an unclean stop, and once serving, in the
/// background, after a clean one.
extension ServeCommand {
    /// `PRAGMA integrity_check` on `path`, read-only (``DatabasePool/integrityProblems(path:)``), on a thread of its
    /// own, printing a line every 5 s while it runs.
    /// - Returns: the seconds it took, or the message that refuses the file.
    static func checkIntegrity(of path: String) async -> Result<Double, StartUpRefusal> {
        let started = ContinuousClock.now
        let done = Atomic(false)
        let progress = Task.detached {
            while true {
                try await Task.sleep(for: .seconds(5))
                guard !done.load(ordering: .sequentiallyConsistent) else { return }
                let seconds = (ContinuousClock.now - started).components.seconds
                LogWriter.standardError.write(line: "tipjar: still checking \(path) (\(seconds) s)")
            }
        }
        let result: Result<[String], any Error> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result { try DatabasePool.integrityProblems(path: path) }) }
        }
        done.store(true, ordering: .sequentiallyConsistent)
        progress.cancel()
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success(let problems) where problems.isEmpty:
            return .success(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        case .success(let problems):
            return .failure(
                StartUpRefusal(
                    message: "tipjar: cannot open the database \(path): it is damaged: PRAGMA integrity_check found "
                        + "\(problems.count == 100 ? "100 or more" : "\(problems.count)") problem\(problems.count == 1 ? "" : "s"), first: \(problems[0]); "
                        + "refusing to open it\n(tipjar check-database \(path) lists every problem)"))
        case .failure(let error):
            return .failure(StartUpRefusal(message: "tipjar: cannot open the database \(path): \(error)"))
        }
    }

    /// The part of one core the background check uses at most (`BackgroundIntegrityCheck`).
    static let backgroundCheckShare = 0.5

    /// After a clean stop, start-up skips `PRAGMA integrity_check` so the first answer comes at once; this runs it once
    /// serving, in the background (``SQLiteTipJarStorage/checkIntegrityInBackground(cpuShare:completion:)``: a
    /// read-only connection and a thread of its own, at most half of one core). It logs one line when it starts, one
    /// when it passes (with its seconds), and one on damage, when the storage starts failing every read and write
    /// (503 "Database damaged", naming what the check found).
    func startBackgroundCheck(of storage: SQLiteTipJarStorage) {
        let database = self.database
        let log = LogWriter.standardError
        log.write(
            line: "tipjar: checking every page of \(database) in the background (PRAGMA integrity_check, at most "
                + "\(Int(Self.backgroundCheckShare * 100)) % of one core): it was closed cleanly, so start-up skipped it")
        storage.checkIntegrityInBackground(cpuShare: Self.backgroundCheckShare) { outcome in
            switch outcome {
            case .passed(let seconds):
                log.write(line: "tipjar: \(database) passed PRAGMA integrity_check in the background in \(String(format: "%.1f", seconds)) s")
            case .damaged(_, let seconds, let error):
                log.write(
                    line: "tipjar: the background check found damage after \(String(format: "%.1f", seconds)) s: \(error.message) "
                        + "Every read and write now answers 503 (Database damaged).")
            case .stopped(let error):
                if (error as? DatabaseError)?.resultCode == SQLITE_INTERRUPT { return }  // the server is stopping
                log.write(line: "tipjar: the background check of \(database) could not finish: \(error)")
            }
        }
    }
}
