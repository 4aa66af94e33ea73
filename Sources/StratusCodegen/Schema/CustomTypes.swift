/// An `input` type: the type of arguments and of other inputs' fields.
public struct InputType: Sendable, Hashable {
    public var name: String
    /// The fields in declaration order (with those of `extend input`).
    public var fields: [InputValue]
    public var position: SourcePosition
}

/// An `interface` type, which models and non-model types may implement and hand-written
/// operations may return.
public struct InterfaceType: Sendable, Hashable {
    public var name: String
    /// The fields in declaration order.
    public var fields: [Field]
    /// The interfaces this one implements, in order.
    public var interfaces: [String]
    /// The `@aws_*` authorization directives on the type.
    public var awsAuth: [AWSAuthDirective]
    public var position: SourcePosition
}

/// A `union` type: one of several object types, which a result tells apart by `__typename`.
public struct UnionType: Sendable, Hashable {
    public var name: String
    /// The member types (models or non-model types), in declaration order.
    public var members: [String]
    public var position: SourcePosition
}

/// A custom `scalar` type.
public struct CustomScalar: Sendable, Hashable {
    public var name: String
    public var position: SourcePosition
}
