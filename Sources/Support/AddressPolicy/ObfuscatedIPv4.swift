extension AddressPolicy {
    /// Reads `host` the way glibc's `inet_aton` does, so that a URL host the resolver would treat as
    /// an address is recognised before any lookup: one to four parts separated by dots, each decimal,
    /// octal (leading `0`) or hex (`0x`); the last part fills all remaining bytes
    /// (`127.1` is 127.0.0.1, `2130706433` is 127.0.0.1, `0x7f.1`, `0177.0.0.1`, `017700000001`).
    /// One trailing dot is tolerated as the WHATWG URL parser does. Returns nil if it is not such a form.
    public static func parseObfuscatedIPv4(_ host: String) -> IPAddress? {
        var bytes = Array(host.utf8)
        if bytes.count > 1, bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.count <= 64 else { return nil }

        var parts: [UInt64] = []
        var index = 0
        while true {
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            var base: UInt64 = 10
            var sawDigit = false
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "x") {
                    base = 16
                    index += 1
                } else {
                    base = 8
                    sawDigit = true
                }
            }
            var value: UInt64 = 0
            while index < bytes.count, let digit = digitValue(bytes[index], base: base) {
                value = value * base + digit
                // inet_aton works in 32 bits; anything wider is not an address.
                if value > 0xffff_ffff { return nil }
                sawDigit = true
                index += 1
            }
            if index < bytes.count, isDigit(bytes[index]) { return nil } // 8 or 9 in octal
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                guard parts.count < 3, value <= 0xff else { return nil }
                parts.append(value)
                index += 1
                continue
            }
            guard index == bytes.count, sawDigit else { return nil }
            parts.append(value)
            break
        }

        let last = parts.removeLast()
        // The final part covers the bytes the earlier parts did not.
        let lastLimit: UInt64 = [0xffff_ffff, 0xff_ffff, 0xffff, 0xff][parts.count]
        guard last <= lastLimit else { return nil }
        var result: UInt64 = 0
        for (i, p) in parts.enumerated() { result |= p << UInt64(24 - 8 * i) }
        return .v4(UInt32(result | last))
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private static func digitValue(_ c: UInt8, base: UInt64) -> UInt64? {
        if c >= 0x30 && c <= 0x39 {
            let v = UInt64(c - 0x30)
            return v < base ? v : nil
        }
        if base == 16 {
            let lower = c | 0x20
            if lower >= 0x61 && lower <= 0x66 { return UInt64(lower - 0x61 + 10) }
        }
        return nil
    }
}
