import GraphQL

/// Conversions between ``JSON`` and GraphQLSwift's `Map`.
extension JSON {
    /// The JSON form of a `Map`; `nil` for `.undefined`, which JSON cannot hold.
    init?(_ map: Map) {
        switch map {
        case .undefined:
            return nil
        case .null:
            self = .null
        case .bool(let value):
            self = .bool(value)
        case .number(let number):
            switch number.storageType {
            case .bool: self = .bool(number.boolValue)
            case .int: self = .int(number.intValue)
            case .double, .unknown:
                let double = number.doubleValue
                self =
                    double.rounded() == double && abs(double) < 9.2e18 && number.storageType == .unknown
                    ? .int(Int(double)) : .double(double)
            }
        case .string(let value):
            self = .string(value)
        case .array(let elements):
            self = .array(elements.map { JSON($0) ?? .null })
        case .dictionary(let members):
            var object = JSONObject()
            for (key, value) in members {
                if let value = JSON(value) { object[key] = value }
            }
            self = .object(object)
        }
    }

    /// The `Map` form of the value, keeping the order of object keys.
    var map: Map {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .double(let value): return .double(value)
        case .string(let value): return .string(value)
        case .array(let elements): return .array(elements.map(\.map))
        case .object(let object):
            var result: Map = [:]
            for (key, value) in object {
                result[key] = value.map
            }
            return result
        }
    }
}
