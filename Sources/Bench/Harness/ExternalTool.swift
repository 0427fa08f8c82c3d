import PerfkitTools

/// Finding and running command-line tools lives in PerfkitTools (PerfMachineCode, below Harness,
/// runs llvm-objdump too); this name keeps Harness's users compiling unchanged.
public typealias ExternalTool = PerfkitTools.ExternalTool
