import SQLiteDatabase
import Foundation
import TipJar
import TipJarSQLite

/// `tipjar check-database FILE`: runs, read-only, every check `tipjar serve` runs before it opens a
/// database, with `PRAGMA integrity_check` in full (<https://www.sqlite.org/pragma.html#pragma_integrity_check>),
/// and never changes the file (a `-wal` beside it is read as SQLite's recovery reads it). Prints
/// `<file>: ok` and exits 0, or prints `<file>: <problem>` once per problem and exits 1.
struct CheckDatabaseCommand {
    static let usage = """
        USAGE: tipjar check-database FILE

        Checks an SQLite database file as 'tipjar serve --database FILE' does before it opens it,
        with PRAGMA integrity_check in full (every page, and every index against its table), and
        never changes the file. Safe while a server has the file open. Prints '<file>: ok' and
        exits 0, or prints '<file>: <problem>' for each problem (at most 100) and exits 1.

        OPTIONS:
          -h, --help            Show this help.
        """

    let file: String

    init(arguments: [String]) throws {
        let reader = try ArgumentReader(arguments, valued: [])
        guard reader.positional.count == 1 else { throw UsageError(message: "check-database takes exactly one FILE") }
        file = reader.positional[0]
    }

    func run() -> Int32 {
        // The path and SQLite's words (which may quote the file's own names) go to a terminal escaped.
        let shownFile = Catalog.escapedField(file)
        let problems: [String]
        do {
            problems = try DatabasePool.integrityProblems(path: file)
        } catch let error as DatabaseError {
            printError("\(shownFile): \(Catalog.escapedField(error.message))")
            return 1
        } catch {
            printError("\(shownFile): \(Catalog.escapedField("\(error)"))")
            return 1
        }
        guard !problems.isEmpty else {
            print("\(shownFile): ok")
            return 0
        }
        for problem in problems { print("\(shownFile): \(Catalog.escapedField(problem))") }
        printError(
            "\(shownFile) is damaged: PRAGMA integrity_check found \(problems.count == 100 ? "100 or more problems" : "\(problems.count) problem\(problems.count == 1 ? "" : "s")"); stop any server on it and restore a copy (tipjar serve checks every page at start-up after an unclean stop, and in the background once serving after a clean one)"
        )
        return 1
    }
}
