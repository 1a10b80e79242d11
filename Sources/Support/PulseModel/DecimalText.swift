import Glibc

/// Numbers for log lines and progress output, as printf writes them. `String(format:)` lives in
/// swift-corelibs-foundation, which the service does not link (it cost every start about 1 ms).
public enum DecimalText {
    /// `value` with `places` digits after the point, as `%.<places>f` (C locale) writes it.
    public static func fixed(_ value: Double, places: Int) -> String {
        // The largest finite Double has 309 integer digits; a sign, the point and the places fit too.
        var buffer = [CChar](repeating: 0, count: 330 + max(0, places))
        _ = withVaList([value]) { arguments in
            buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, $0.count, "%.\(max(0, places))f", arguments) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
