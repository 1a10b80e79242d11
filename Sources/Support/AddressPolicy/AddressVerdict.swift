/// The outcome of checking one address against the SSRF policy.
public enum AddressVerdict: Hashable, Sendable {
    case allowed
    case blocked(reason: String)

    public var isAllowed: Bool { self == .allowed }
}
