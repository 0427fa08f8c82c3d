import PerfkitPlatform

/// Finding and running command-line tools now lives in PerfkitPlatform (PerfMachineCode, below
/// Harness, runs llvm-objdump too); this name keeps Harness's users compiling unchanged.
public typealias ExternalTool = PerfkitPlatform.ExternalTool
