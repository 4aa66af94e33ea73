extension SigV4Request {
    /// HTTP header fields in order, with repeated names and case-insensitive lookup.
    ///
    /// ```swift
    /// var headers: SigV4Request.Headers = ["Accept": "application/json", "X-Tag": "a"]
    /// headers.add(name: "x-tag", value: "b")
    /// headers.values(for: "X-TAG")  // ["a", "b"]
    /// headers["content-type"] = "application/json"
    /// ```
    public struct Headers: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
        /// One header field: a name as written and its value.
        public struct Field: Sendable, Hashable {
            /// The name as written; lookups ignore its case.
            public var name: String

            /// The value as written, surrounding whitespace included.
            public var value: String

            /// Creates a field.
            public init(name: String, value: String) {
                self.name = name
                self.value = value
            }
        }

        private var fields: [Field]

        /// Creates header fields, in order.
        public init(_ fields: [Field] = []) {
            self.fields = fields
        }

        /// Creates header fields from name-value pairs, in order; a name may repeat.
        public init(dictionaryLiteral elements: (String, String)...) {
            self.fields = elements.map { Field(name: $0.0, value: $0.1) }
        }

        public var startIndex: Int { fields.startIndex }
        public var endIndex: Int { fields.endIndex }
        public subscript(position: Int) -> Field { fields[position] }

        /// The first value of the fields named `name`, ignoring case.
        ///
        /// Setting replaces every field of that name with one field at the end, or removes them
        /// all when the new value is `nil`.
        public subscript(name: String) -> String? {
            get {
                fields.first { Self.namesMatch($0.name, name) }?.value
            }
            set {
                remove(name: name)
                if let newValue {
                    add(name: name, value: newValue)
                }
            }
        }

        /// The values of every field named `name`, ignoring case, in order.
        public func values(for name: String) -> [String] {
            fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
        }

        /// Whether a field is named `name`, ignoring case.
        public func contains(name: String) -> Bool {
            fields.contains { Self.namesMatch($0.name, name) }
        }

        /// Appends a field, keeping any others of the same name.
        public mutating func add(name: String, value: String) {
            fields.append(Field(name: name, value: value))
        }

        /// Removes every field named `name`, ignoring case.
        public mutating func remove(name: String) {
            fields.removeAll { Self.namesMatch($0.name, name) }
        }

        /// Removes every field whose name satisfies `shouldRemove`, keeping the others in order.
        mutating func removeAll(where shouldRemove: (String) -> Bool) {
            fields.removeAll { shouldRemove($0.name) }
        }

        /// Whether two names are equal ignoring case, without allocating when both are ASCII.
        static func namesMatch(_ a: String, _ b: String) -> Bool {
            let asciiResult: Bool? = SigV4Canonical.withUTF8(a) { a in
                SigV4Canonical.withUTF8(b) { b in
                    guard a.count == b.count else {
                        // Lowercasing a non-ASCII name may change its length.
                        return a.contains { $0 >= 0x80 } || b.contains { $0 >= 0x80 } ? nil : false
                    }
                    var equal = true
                    for (x, y) in zip(a, b) {
                        if x >= 0x80 || y >= 0x80 { return nil }
                        equal = equal && lowercased(x) == lowercased(y)
                    }
                    return equal
                }
            }
            return asciiResult ?? a.lowercased().utf8.elementsEqual(b.lowercased().utf8)
        }

        private static func lowercased(_ byte: UInt8) -> UInt8 {
            byte &- UInt8(ascii: "A") < 26 ? byte + 0x20 : byte
        }
    }
}
