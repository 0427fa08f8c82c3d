import ELFSymbols
import Testing

@testable import Harness

/// The build ID a report records is the running executable's: read from its loaded notes, it
/// matches what the file on disk says (parsed by ELFSymbols, as `readelf -n` would).
struct ExecutableIdentityTests {
    @Test func theBuildIDIsTheRunningExecutablesOwn() throws {
        let onDisk = try ELFImage(path: "/proc/self/exe").buildID
        #expect(onDisk != nil, "Swift on Linux links with --build-id")
        #expect(ExecutableIdentity.buildID == onDisk)
        #expect(ExecutableIdentity.buildID?.count == 40, "SHA-1: 20 bytes")
    }
}
