/// Why a URL may not be stored (data contract §3, invariant 5).
public enum StoredURLRejection: Error, Hashable, Sendable, CustomStringConvertible {
    case empty
    case tooLong(limit: Int)
    case controlOrBidiCharacters
    case disallowedCharacter
    case malformed
    case notAbsolute
    case schemeNotAllowed
    case noHost
    case userinfoPresent
    case invalidHost
    case invalidPort
    case localhost
    case obfuscatedIPLiteral
    case disallowedIPLiteral

    public var description: String {
        switch self {
        case .empty: return "URL is empty"
        case .tooLong(let limit): return "URL is longer than \(limit) characters"
        case .controlOrBidiCharacters: return "URL contains control or bidi characters"
        case .disallowedCharacter: return "URL contains a backslash, no-break space or byte-order mark"
        case .malformed: return "URL does not parse"
        case .notAbsolute: return "URL is not absolute (no scheme)"
        case .schemeNotAllowed: return "URL scheme is not http or https"
        case .noHost: return "URL has no host"
        case .userinfoPresent: return "URL carries userinfo (user:password@)"
        case .invalidHost: return "URL host has characters no host name may contain"
        case .invalidPort: return "URL port is not in 1...65535"
        case .localhost: return "URL host is localhost or a name under .localhost"
        case .obfuscatedIPLiteral: return "URL host is an obfuscated IP literal (decimal, octal, hex or short IPv4 form)"
        case .disallowedIPLiteral: return "URL host is an IP literal outside the allowed address ranges"
        }
    }
}
