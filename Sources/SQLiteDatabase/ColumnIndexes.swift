/// The result columns of one prepared ``Statement``, by name, for ``Row/value(named:as:)``.
///
/// The map from each name to its 0-based index is built once per statement, from `sqlite3_column_name`
/// (<https://www.sqlite.org/c3ref/column_name.html>), so a cached statement builds it once for its life. The
/// leftmost column of a name wins; names match as SQL identifiers do, ignoring ASCII case.
///
/// It also remembers the names one row read, in the order it read them, with their indexes: a decoder reads
/// the same names in the same order on every row, so from the second row on a read by name is one comparison
/// of the same string (`==` on identical strings does not look at their bytes), with no hashing and no
/// allocation. A read that differs from the remembered one falls back to the map and is remembered instead.
///
/// SQLite names a result column after its `AS` clause; without one, a column reference such as
/// `installs.hearts` is named `hearts` by the SQLite releases this package builds with, which the
/// documentation above does not promise: the storage's rule suite reads every column by name and fails if that
/// changes.
struct ColumnIndexes {
    /// The result column names, left to right.
    let names: [String]
    /// Each leftmost name as SQLite spells it → its index (no lowercasing for a read spelled the same).
    private let exactIndexes: [String: Int]
    /// Each name, lowercased → the index of its leftmost column (for a read spelled in another case).
    private let foldedIndexes: [String: Int]
    /// The names the last row read, in order, with their indexes.
    private var recentReads: [(name: String, index: Int)] = []
    /// How many reads the current row made so far.
    private var readCount = 0

    /// Builds the maps of `names` (a statement's `sqlite3_column_name`s, left to right).
    init(names: [String]) {
        self.names = names
        var exact: [String: Int] = [:]
        var folded: [String: Int] = [:]
        for (index, name) in names.enumerated().reversed() { folded[name.lowercased()] = index }
        // A spelling is a shortcut only to the leftmost column of its name in any case, as SQL compares names.
        for (index, name) in names.enumerated() where folded[name.lowercased()] == index { exact[name] = index }
        exactIndexes = exact
        foldedIndexes = folded
    }

    /// Called when the statement steps onto a new row: the row's reads are compared with the last row's from
    /// the first one.
    mutating func rowBegins() { readCount = 0 }

    /// The index of the leftmost column named `name`, or `nil` when no column has that name.
    mutating func index(of name: String) -> Int? {
        defer { readCount += 1 }
        if readCount < recentReads.count, recentReads[readCount].name == name { return recentReads[readCount].index }
        guard let index = exactIndexes[name] ?? foldedIndexes[name.lowercased()] else { return nil }
        if readCount < recentReads.count {
            recentReads[readCount] = (name, index)
        } else {
            recentReads.append((name, index))
        }
        return index
    }
}
