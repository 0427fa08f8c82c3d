import CHarness

/// Which build of the benchmark executable measured a result: its GNU build ID, a hash the linker
/// computes over the linked contents. Two runs with the same build ID ran the same machine code,
/// so a level shift between them is the machine's, not a commit's (`perfkit history changes`
/// says so). Nil when the executable carries none (linked without `--build-id`; Swift on Linux
/// links with it) or on a platform without ELF notes.
///
/// Read from the notes of the loaded program (`dl_iterate_phdr`, in CHarness), not with
/// ELFSymbols' file parser: that one reads the whole symbol table of an executable of tens of
/// megabytes, which a benchmark run need not pay for one hash. `ExecutableIdentityTests` checks
/// that both read the same ID.
public enum ExecutableIdentity {
    public static let buildID: String? = {
        var bytes = [UInt8](repeating: 0, count: 64)
        let length = bytes.withUnsafeMutableBufferPointer {
            charness_executable_build_id($0.baseAddress, Int32($0.count))
        }
        guard length > 0 else { return nil }
        return bytes.prefix(Int(length)).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }()
}
