import PerfkitHistory

/// One store's place for one contract check (a file that does not exist yet, an empty database),
/// and what the checks need to do there behind the store's back, as another program would.
public protocol StoreContractSubject: Sendable {
    /// What the store's `location` and its errors must name: the path, or the URL without its password.
    var location: String { get }

    /// Opens the store at this place: a new connection each time, as a new process would.
    func open(create: Bool) throws -> any ResultsStore

    /// Whether nothing is there: no file, no table.
    func isEmpty() throws -> Bool

    /// Puts another program's data where the store would be, before any store was opened there.
    func writeForeignData() throws

    /// Whether the data of `writeForeignData` is there exactly as written, with nothing added.
    func foreignDataIsUntouched() throws -> Bool

    /// Marks the store there as written in history format `version` (a newer perfkit's, say).
    func setFormatVersion(_ version: Int) throws

    /// Turns the store there back into history format 1, as the first perfkit wrote it: no build
    /// IDs in its results.
    func makeFormatOne() throws
}
