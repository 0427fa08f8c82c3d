import Foundation

/// What went wrong, for ``MemoryWatchError``.
public enum MemoryWatchErrorKind: Sendable, Equatable {
    /// A setting is out of range (the message says which).
    case invalidConfiguration
    /// Another memory watch of this process already keeps a breadcrumb.
    case alreadyKeepingABreadcrumb
    /// The breadcrumb file is locked by another running process.
    case breadcrumbInUse
    /// The file holds something else; it was not overwritten.
    case notABreadcrumb
    /// A file could not be opened, read, written or mapped.
    case fileUnusable
}

/// Why ``MemoryWatch/start()`` or ``previousExit(breadcrumb:)`` failed: a kind to switch on, a
/// one-line message naming the file and the problem, and the system's error number where there is one.
public typealias MemoryWatchError = ProbeError<MemoryWatchErrorKind>

extension ProbeError where SpecificKind == MemoryWatchErrorKind {
    static func file(_ path: String, _ what: String, errno error: Int32) -> MemoryWatchError {
        MemoryWatchError(
            kind: .fileUnusable, message: "\(path): cannot \(what): \(String(cString: strerror(error)))", path: path,
            errorNumber: error)
    }
}
