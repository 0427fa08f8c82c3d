/// What `/proc/cpuinfo` says about the processor. Under a user-mode emulator (qemu-user) the file
/// is the host kernel's, so the family it names can differ from the one this process runs as.
package enum CPUInfo {
    /// "x86_64" or "aarch64", the family `text` describes; nil when it names neither or both.
    package static func architecture(described text: String) -> String? {
        switch (text.contains("vendor_id"), text.contains("CPU implementer")) {
        case (true, false): "x86_64"
        case (false, true): "aarch64"
        default: nil
        }
    }

    /// The family this code was compiled for, in `uname -m`'s spelling.
    package static var compiledArchitecture: String {
        #if arch(x86_64)
            "x86_64"
        #elseif arch(arm64)
            "aarch64"
        #else
            "unknown"
        #endif
    }
}
