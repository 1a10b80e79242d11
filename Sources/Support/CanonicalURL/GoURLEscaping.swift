internal import TextSupport

// Byte-level port of the escaping rules in Go's net/url (shouldEscape, escape, unescape,
// validEncoded). Hand-written rather than taken from a library because stored rows are keyed
// on the exact bytes Go produced: Foundation's URL and WHATWG-style parsers escape differently.
// Everything works on UTF-8 bytes because percent-decoding can yield invalid UTF-8, which a
// Swift String cannot hold but Go's string can.

/// Which URL component a byte sequence belongs to (Go's `encoding` constants).
enum GoEncoding: Sendable {
    case path, pathSegment, host, zone, userPassword, queryComponent, fragment
}

/// Why Go's parser refused a URL; the text mirrors Go's error strings for debugging.
enum GoURLError: Error, Equatable, Sendable, CustomStringConvertible {
    case controlCharacter
    case missingScheme
    case colonInFirstSegment
    case missingBracket
    case invalidPort([UInt8])
    case invalidEscape([UInt8])
    case invalidHostCharacter(UInt8)
    case invalidUserinfo

    var description: String {
        switch self {
        case .controlCharacter: return "net/url: invalid control character in URL"
        case .missingScheme: return "missing protocol scheme"
        case .colonInFirstSegment: return "first path segment in URL cannot contain colon"
        case .missingBracket: return "missing ']' in host"
        case .invalidPort(let p): return "invalid port \"\(String(decoding: p, as: UTF8.self))\" after host"
        case .invalidEscape(let e): return "invalid URL escape \"\(String(decoding: e, as: UTF8.self))\""
        case .invalidHostCharacter(let c): return "invalid character \(c) in host name"
        case .invalidUserinfo: return "net/url: invalid userinfo"
        }
    }
}

enum GoEscaping {
    static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    @inline(__always) static func isHex(_ c: UInt8) -> Bool { TextScan.hexDigitValue(c) != nil }

    /// Called only on a byte `isHex` accepted.
    @inline(__always) static func unhex(_ c: UInt8) -> UInt8 { TextScan.hexDigitValue(c) ?? 0 }

    @inline(__always) static func isAlphaNum(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39)
    }

    /// Go's `shouldEscape`: whether byte `c` must be percent-encoded in the given component.
    static func shouldEscape(_ c: UInt8, _ mode: GoEncoding) -> Bool {
        if isAlphaNum(c) { return false }
        if mode == .host || mode == .zone {
            switch c {
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
                 UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
                 UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
                 UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "<"), UInt8(ascii: ">"),
                 UInt8(ascii: "\""):
                return false
            default: break
            }
        }
        switch c {
        case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            return false
        case UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: ","),
             UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: "?"), UInt8(ascii: "@"):
            switch mode {
            case .path:
                return c == UInt8(ascii: "?")
            case .pathSegment:
                return c == UInt8(ascii: "/") || c == UInt8(ascii: ";") || c == UInt8(ascii: ",")
                    || c == UInt8(ascii: "?")
            case .userPassword:
                return c == UInt8(ascii: "@") || c == UInt8(ascii: "/") || c == UInt8(ascii: "?")
                    || c == UInt8(ascii: ":")
            case .queryComponent:
                return true
            case .fragment:
                return false
            case .host, .zone:
                break  // Go falls through to "escape everything else" for these.
            }
        default: break
        }
        if mode == .fragment {
            switch c {
            case UInt8(ascii: "!"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"):
                return false
            default: break
            }
        }
        return true
    }

    /// Go's `unescape`: validates every `%XX` (and host/zone characters), then decodes.
    static func unescape(_ s: ArraySlice<UInt8>, _ mode: GoEncoding) throws(GoURLError) -> [UInt8] {
        var percentCount = 0
        var hasPlus = false
        var i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == UInt8(ascii: "%") {
                percentCount += 1
                if i + 2 >= s.endIndex || !isHex(s[i + 1]) || !isHex(s[i + 2]) {
                    throw .invalidEscape(Array(s[i..<min(i + 3, s.endIndex)]))
                }
                let isPercent25 = s[i + 1] == UInt8(ascii: "2") && s[i + 2] == UInt8(ascii: "5")
                // RFC 3986 lets a host %-encode only non-ASCII bytes; RFC 6874 adds %25 for zones.
                if mode == .host && unhex(s[i + 1]) < 8 && !isPercent25 {
                    throw .invalidEscape(Array(s[i..<i + 3]))
                }
                if mode == .zone {
                    let v = unhex(s[i + 1]) << 4 | unhex(s[i + 2])
                    if !isPercent25 && v != UInt8(ascii: " ") && shouldEscape(v, .host) {
                        throw .invalidEscape(Array(s[i..<i + 3]))
                    }
                }
                i += 3
            } else if c == UInt8(ascii: "+") {
                hasPlus = mode == .queryComponent
                i += 1
            } else {
                if (mode == .host || mode == .zone) && c < 0x80 && shouldEscape(c, mode) {
                    throw .invalidHostCharacter(c)
                }
                i += 1
            }
        }
        if percentCount == 0 && !hasPlus { return Array(s) }

        var out: [UInt8] = []
        out.reserveCapacity(s.count - 2 * percentCount)
        i = s.startIndex
        while i < s.endIndex {
            let c = s[i]
            if c == UInt8(ascii: "%") {
                out.append(unhex(s[i + 1]) << 4 | unhex(s[i + 2]))
                i += 3
                continue
            }
            if c == UInt8(ascii: "+") && mode == .queryComponent {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(c)
            }
            i += 1
        }
        return out
    }

    static func unescape(_ s: [UInt8], _ mode: GoEncoding) throws(GoURLError) -> [UInt8] {
        try unescape(s[...], mode)
    }

    /// Go's `escape`: percent-encodes (upper-case hex) every byte `shouldEscape` selects.
    static func escape(_ s: [UInt8], _ mode: GoEncoding) -> [UInt8] {
        var needsWork = false
        for c in s where shouldEscape(c, mode) {
            needsWork = true
            break
        }
        if !needsWork { return s }
        var out: [UInt8] = []
        out.reserveCapacity(s.count + 8)
        for c in s {
            if c == UInt8(ascii: " ") && mode == .queryComponent {
                out.append(UInt8(ascii: "+"))
            } else if shouldEscape(c, mode) {
                out.append(UInt8(ascii: "%"))
                out.append(upperHex[Int(c >> 4)])
                out.append(upperHex[Int(c & 15)])
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// Go's `validEncoded`: whether `s` holds no byte that escaping would have to change.
    static func validEncoded(_ s: [UInt8], _ mode: GoEncoding) -> Bool {
        for c in s {
            switch c {
            case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
                 UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
                 UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
                 UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "%"):
                continue
            default:
                if shouldEscape(c, mode) { return false }
            }
        }
        return true
    }
}
