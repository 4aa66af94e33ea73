import Amplify
import Foundation
import GRDB

/// Collations that order ISO 8601 text by the instant it names, for sorting `AWSDate`,
/// `AWSDateTime` and `AWSTime` fields.
///
/// Text order is not time order once offsets differ: `2024-01-02T04:00:00+02:00` comes before
/// `2024-01-02T03:00:00Z` in time but after it in text. Sorting uses the order of the
/// ``Temporal`` types instead: by instant, then by offset and by the number of fraction digits,
/// so that equal text and only equal text compares equal.
enum TemporalCollations {
    /// The collations, to add to every connection.
    ///
    /// A collation cannot fail, so text that is not a valid value (only text written outside
    /// DataStore, which validates what it stores) parses as `nil` and sorts by its bytes.
    static let all: [DatabaseCollation] = [
        collation(.date) { order(try? Temporal.Date(iso8601String: $0), try? Temporal.Date(iso8601String: $1)) },
        collation(.dateTime) {
            order(try? Temporal.DateTime(iso8601String: $0), try? Temporal.DateTime(iso8601String: $1))
        },
        collation(.time) { order(try? Temporal.Time(iso8601String: $0), try? Temporal.Time(iso8601String: $1)) },
    ]

    /// The name of the collation for `kind`.
    static func name(_ kind: ColumnKind.TemporalKind) -> String {
        switch kind {
        case .date: return "stratus_date"
        case .dateTime: return "stratus_datetime"
        case .time: return "stratus_time"
        }
    }

    private static func collation(
        _ kind: ColumnKind.TemporalKind,
        _ compare: @escaping @Sendable (String, String) -> ComparisonResult?
    ) -> DatabaseCollation {
        DatabaseCollation(name(kind)) { lhs, rhs in
            if let result = compare(lhs, rhs) { return result }
            if lhs.utf8.elementsEqual(rhs.utf8) { return .orderedSame }
            return lhs.utf8.lexicographicallyPrecedes(rhs.utf8) ? .orderedAscending : .orderedDescending
        }
    }

    /// The order of two parsed values; `nil` when either did not parse.
    private static func order<T: Comparable>(_ lhs: T?, _ rhs: T?) -> ComparisonResult? {
        guard let lhs, let rhs else { return nil }
        return lhs < rhs ? .orderedAscending : (rhs < lhs ? .orderedDescending : .orderedSame)
    }
}
