import TipJar

/// Why a scenario file was refused before any step ran: which file, where in it, and what is
/// wrong, in the shape of a `check-storekit` refusal (`CatalogError` in Sources/TipJar/Catalog).
public struct ScenarioError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The file as given on the command line.
    public var file: String
    /// A JSON path from the root (`"steps[2].expect.hearts"`, `"$"` for the root), or a text
    /// position for syntax errors (`"line 4, column 12"`, `"end of file (line 9, column 1)"`).
    public var location: String
    /// What is wrong, in plain words.
    public var problem: String

    /// Creates an error.
    public init(file: String, location: String, problem: String) {
        self.file = file
        self.location = location
        self.problem = problem
    }

    /// `"<file>: <location>: <problem>"`, the file's path and the location (whose keys come from the file) escaped by
    /// ``Catalog/escapedField(_:)``, as the problem's quotes of the file are (``ScenarioNode/shown(_:)``), so the line
    /// can go to a terminal.
    public var description: String { "\(Catalog.escapedField(file)): \(Catalog.escapedField(location)): \(problem)" }
}
