import Foundation

extension TimeZone {
    /// Coordinated Universal Time: the time zone with a zero offset and no daylight saving time.
    ///
    /// The default time zone of the ``Temporal`` initializers that take a `Foundation.Date`.
    public static var utc: TimeZone { .gmt }
}
