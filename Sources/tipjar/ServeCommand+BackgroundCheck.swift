import CSQLite
import Foundation
import HTTPServer
import TipJarSQLite

extension ServeCommand {
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
