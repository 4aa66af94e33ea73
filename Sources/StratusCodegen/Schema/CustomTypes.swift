/// An `input` type: the type of arguments and of other inputs' fields.
public struct InputType: Sendable, Hashable {
    /// The type's name.
    public var name: String
    /// The fields in declaration order (with those of `extend input`).
    public var fields: [InputValue]
    /// Where the type is declared.
    public var position: SourcePosition
}

/// An `interface` type, which models and non-model types may implement and hand-written
/// operations may return.
public struct InterfaceType: Sendable, Hashable {
    /// The interface's name.
    public var name: String
    /// The fields in declaration order.
    public var fields: [Field]
    /// The interfaces this one implements, in order.
    public var interfaces: [String]
    /// The `@aws_*` authorization directives on the type.
    public var awsAuth: [AWSAuthDirective]
    /// Where the interface is declared.
    public var position: SourcePosition
}

/// A `union` type: one of several object types, which a result tells apart by `__typename`.
public struct UnionType: Sendable, Hashable {
    /// The union's name.
    public var name: String
    /// The member types (models or non-model types), in declaration order.
    public var members: [String]
    /// Where the union is declared.
    public var position: SourcePosition
}

/// A custom `scalar` type: values the API passes through as JSON without checking them.
public struct CustomScalar: Sendable, Hashable {
    /// The scalar's name.
    public var name: String
    /// Where the scalar is declared.
    public var position: SourcePosition
}
