import Foundation

/// A small JSON Schema (draft 2020-12) validator covering the keywords the report schema uses:
/// type, properties, required, additionalProperties, items, enum, const, minimum,
/// exclusiveMinimum/Maximum and local `$ref`s. Enough to check real reports in tests without a
/// dependency; CI also validates with Python's `jsonschema`.
struct JSONSchemaValidator {
    let root: [String: Any]

    init(schemaURL: URL) throws {
        root = try JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as! [String: Any]
    }

    /// Every violation as "path: problem"; empty when valid.
    func validate(_ instance: Any) -> [String] {
        var errors: [String] = []
        check(instance, against: root, at: "$", errors: &errors)
        return errors
    }

    private func resolve(_ schema: [String: Any]) -> [String: Any] {
        guard let reference = schema["$ref"] as? String, reference.hasPrefix("#/") else { return schema }
        var node: Any = root
        for part in reference.dropFirst(2).split(separator: "/") {
            node = (node as! [String: Any])[String(part)]!
        }
        return resolve(node as! [String: Any])
    }

    private func typeName(_ value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return "boolean" }
            return number.doubleValue == number.doubleValue.rounded() ? "integer" : "number"
        case is String: return "string"
        case is [Any]: return "array"
        case is [String: Any]: return "object"
        default: return "unknown"
        }
    }

    private func check(_ value: Any, against rawSchema: [String: Any], at path: String, errors: inout [String]) {
        let schema = resolve(rawSchema)
        let actual = typeName(value)
        if let type = schema["type"] {
            let allowed = (type as? [String]) ?? [type as! String]
            let matches = allowed.contains(actual) || (actual == "integer" && allowed.contains("number"))
            if !matches {
                errors.append("\(path): expected \(allowed.joined(separator: "|")), found \(actual)")
                return
            }
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { "\($0)" == "\(value)" }) {
            errors.append("\(path): \(value) is not one of \(options)")
        }
        if let constant = schema["const"], "\(constant)" != "\(value)" {
            errors.append("\(path): expected \(constant)")
        }
        if let number = value as? NSNumber, actual == "integer" || actual == "number" {
            let x = number.doubleValue
            if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, x < minimum {
                errors.append("\(path): \(x) < minimum \(minimum)")
            }
            if let bound = (schema["exclusiveMinimum"] as? NSNumber)?.doubleValue, x <= bound {
                errors.append("\(path): \(x) ≤ exclusiveMinimum \(bound)")
            }
            if let bound = (schema["exclusiveMaximum"] as? NSNumber)?.doubleValue, x >= bound {
                errors.append("\(path): \(x) ≥ exclusiveMaximum \(bound)")
            }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                errors.append("\(path): missing required \"\(key)\"")
            }
            for (key, child) in object {
                if let property = properties[key] as? [String: Any] {
                    check(child, against: property, at: "\(path).\(key)", errors: &errors)
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    check(child, against: additional, at: "\(path).\(key)", errors: &errors)
                } else if (schema["additionalProperties"] as? Bool) == false {
                    errors.append("\(path): unexpected property \"\(key)\"")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() {
                check(element, against: items, at: "\(path)[\(index)]", errors: &errors)
            }
        }
    }
}
