import CLibCrypto

/// The article URL key shared with rows written by the old Go worker (data contract §4).
///
/// Rows are deduplicated on `hash(canonicalize(url))`, so this must reproduce the Go worker byte
/// for byte: `url.Parse`, drop the fragment, lower-case scheme and host, sort the raw query's
/// `&`-separated pieces by byte order, `URL.String()`. A URL Go cannot parse is kept verbatim.
public enum CanonicalURL {
    public static func canonicalize(_ raw: String) -> String {
        guard let url = try? GoURL.parse(Array(raw.utf8)) else { return raw }
        return canonical(url)
    }

    /// The key two feed URLs share when they name one feed: `canonicalize`, and a port that is the
    /// scheme's default (`:80` for http, `:443` for https, or an empty one) left out. Only for
    /// comparing sources (duplicates in feeds.yaml and in imported catalogues); never stored, and
    /// never the article key, which keeps the port as the Go worker did.
    public static func feedIdentity(_ raw: String) -> String {
        guard var url = try? GoURL.parse(Array(raw.utf8)) else { return raw }
        let defaultPort: String? = switch String(decoding: ByteText.goLowercased(url.scheme), as: UTF8.self) {
        case "https": ":443"
        case "http": ":80"
        default: nil
        }
        if let defaultPort {
            for port in [defaultPort, ":"]
            where url.host.count > port.utf8.count && url.host.suffix(port.utf8.count).elementsEqual(port.utf8) {
                url.host.removeLast(port.utf8.count)
                break
            }
        }
        return canonical(url)
    }

    private static func canonical(_ parsed: GoURL) -> String {
        var url = parsed
        url.fragment = []
        url.rawFragment = []
        url.scheme = ByteText.goLowercased(url.scheme)
        url.host = ByteText.goLowercased(url.host)
        if !url.rawQuery.isEmpty {
            let pieces = url.rawQuery.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
            // Go's sort.Strings compares bytes; Swift's String `<` would compare Unicode scalars
            // after normalisation, so sort the byte slices directly.
            let sorted = pieces.sorted { $0.lexicographicallyPrecedes($1) }
            url.rawQuery = Array(sorted.joined(separator: [UInt8(ascii: "&")]))
        }
        // Every byte written is ASCII or copied from the (valid UTF-8) input at ASCII boundaries.
        return String(decoding: url.serialized(), as: UTF8.self)
    }

    /// Lower-case hex SHA-256 of the UTF-8 bytes of `canonical` (the `url_hash` column).
    public static func hash(_ canonical: String) -> String { sha256Hex(canonical) }

}

/// Lower-case hex SHA-256 of the UTF-8 bytes of `text` (OpenSSL's libcrypto).
public func sha256Hex(_ text: String) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    let done = Array(text.utf8).withUnsafeBytes { pulse_sha256($0.baseAddress, $0.count, &digest) }
    precondition(done == 1, "libcrypto's SHA-256 failed")
    let hexDigits = Array("0123456789abcdef".utf8)
    var out = [UInt8]()
    out.reserveCapacity(64)
    for byte in digest {
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 15)])
    }
    return String(decoding: out, as: UTF8.self)
}
