/// Swift's mangled-name prefix of a module-level function: `$s<len><module><len><name>`.
/// Everything the compiler derives from that function (specialisations, merged bodies) shares it.
public func mangledPrefix(module: String, function: String) -> String {
    "$s\(module.utf8.count)\(module)\(function.utf8.count)\(function)"
}
