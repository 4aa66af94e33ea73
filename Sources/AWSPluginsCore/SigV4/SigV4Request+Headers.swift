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
                fields.first { Self.matches($0.name, name) }?.value
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
            fields.filter { Self.matches($0.name, name) }.map(\.value)
        }

        /// Whether a field is named `name`, ignoring case.
        public func contains(name: String) -> Bool {
            fields.contains { Self.matches($0.name, name) }
        }

        /// Appends a field, keeping any others of the same name.
        public mutating func add(name: String, value: String) {
            fields.append(Field(name: name, value: value))
        }

        /// Removes every field named `name`, ignoring case.
        public mutating func remove(name: String) {
            fields.removeAll { Self.matches($0.name, name) }
        }

        private static func matches(_ a: String, _ b: String) -> Bool {
            a.lowercased().utf8.elementsEqual(b.lowercased().utf8)
        }
    }
}
