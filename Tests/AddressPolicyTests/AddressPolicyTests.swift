import Testing
import AddressPolicy

struct AddressPolicyVerdictTests {
    /// (address, substring the blocked reason must contain)
    static let blocked: [(String, String)] = [
        ("127.0.0.1", "loopback"),
        ("127.255.255.254", "loopback"),
        ("10.1.2.3", "RFC 1918"),
        ("172.16.0.1", "RFC 1918"),
        ("172.31.255.255", "RFC 1918"),
        ("192.168.1.1", "RFC 1918"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("100.64.0.1", "carrier-grade NAT"),
        ("100.127.255.255", "carrier-grade NAT"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("0.1.2.3", "this network"),
        ("255.255.255.255", "broadcast"),
        ("240.0.0.1", "reserved"),
        ("198.18.0.1", "benchmarking"),
        ("198.19.255.255", "benchmarking"),
        ("192.0.2.1", "documentation"),
        ("198.51.100.7", "documentation"),
        ("203.0.113.9", "documentation"),
        ("192.0.0.8", "IETF"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fc00::1", "unique local"),
        ("fd12:3456::1", "unique local"),
        ("fe80::1", "link-local"),
        ("febf::1", "link-local"),
        ("fec0::1", "site-local"),
        ("ff02::1", "multicast"),
        ("2001:db8::1", "documentation"),
        ("::ffff:127.0.0.1", "IPv4-mapped address wrapping 127.0.0.1: loopback"),
        ("::ffff:169.254.169.254", "wrapping 169.254.169.254"),
        ("::ffff:10.0.0.1", "IPv4-mapped"),
        ("::127.0.0.1", "IPv4-compatible address wrapping 127.0.0.1"),
        ("::10.0.0.1", "IPv4-compatible"),
        ("64:ff9b::7f00:1", "NAT64 address wrapping 127.0.0.1"),
        ("64:ff9b::192.168.0.1", "NAT64"),
        ("64:ff9b:1::8.8.8.8", "local-use NAT64"),
        ("2002:7f00:1::1", "6to4 address wrapping 127.0.0.1"),
        ("2002:a9fe:a9fe::", "6to4 address wrapping 169.254.169.254"),
        // Teredo client 10.0.0.1 is stored inverted: ~0x0a000001 = 0xf5fffffe.
        ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo client address wrapping 10.0.0.1"),
        ("2001:0:7f00:1::", "Teredo server address wrapping 127.0.0.1"),
        ("100::1", "discard"),
        ("4000::1", "reserved IPv6"),
    ]

    @Test(arguments: blocked)
    func blocks(address: String, reasonFragment: String) throws {
        let ip = try #require(IPAddress(address))
        guard case .blocked(let reason) = AddressPolicy.verdict(for: ip, allowing: []) else {
            Issue.record("\(address) was allowed")
            return
        }
        #expect(reason.contains(reasonFragment), "reason was: \(reason)")
    }

    static let allowed: [String] = [
        "8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "172.15.255.255", "100.128.0.1",
        "100.63.255.255", "169.253.255.255", "198.20.0.1", "223.255.255.255", "11.0.0.1",
        "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8",
        "2002:808:808::1", "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
    ]

    @Test(arguments: allowed)
    func allows(address: String) throws {
        let ip = try #require(IPAddress(address))
        #expect(AddressPolicy.verdict(for: ip) == .allowed)
    }

    @Test func operatorExemptions() throws {
        let allow = try #require(CIDR.parseList("10.0.0.0/8,fd00::/8"))
        #expect(AddressPolicy.verdict(for: IPAddress("10.9.8.7")!, allowing: allow) == .allowed)
        #expect(AddressPolicy.verdict(for: IPAddress("fd00::5")!, allowing: allow) == .allowed)
        // Exempting 10/8 also exempts it when wrapped, since the wrapped host is the same one.
        #expect(AddressPolicy.verdict(for: IPAddress("::ffff:10.1.1.1")!, allowing: allow) == .allowed)
        // Neighbouring ranges stay blocked.
        #expect(AddressPolicy.verdict(for: IPAddress("192.168.0.1")!, allowing: allow) != .allowed)
        #expect(AddressPolicy.verdict(for: IPAddress("fc00::1")!, allowing: allow) != .allowed)
        #expect(AddressPolicy.verdict(for: IPAddress("127.0.0.1")!, allowing: allow) != .allowed)
    }
}

struct ObfuscatedIPv4Tests {
    static let recognised: [(String, String)] = [
        ("2130706433", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("017700000001", "127.0.0.1"),
        ("0x7f.1", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F000001", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("127.0.0.1", "127.0.0.1"),
        ("0x7f.0x0.0x0.0x1", "127.0.0.1"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
        ("169.254.43518", "169.254.169.254"),
        ("2852039166", "169.254.169.254"),
        ("10.1", "10.0.0.1"),
        ("0", "0.0.0.0"),
        ("00", "0.0.0.0"),
        ("0x0", "0.0.0.0"),
        ("4294967295", "255.255.255.255"),
        ("192.168.257", "192.168.1.1"),
        ("127.0.0.1.", "127.0.0.1"),
        ("010.010.010.010", "8.8.8.8"),
    ]

    @Test(arguments: recognised)
    func recognises(host: String, expected: String) throws {
        let ip = try #require(AddressPolicy.parseObfuscatedIPv4(host))
        #expect(ip.description == expected)
    }

    static let notAddresses: [String] = [
        "", ".", "example.com", "4294967296", "0x100000000", "08", "0189.0.0.1", "256.0.0.1",
        "1.2.3.4.5", "1..2", ".1.2.3", "1.2.3.256", "1.2.65536", "1.16777216", "0xg", "127.0.0.1x",
        "-1", "1.2.3.4 ", "127.0.0.1..", "::1",
    ]

    @Test(arguments: notAddresses)
    func rejects(host: String) {
        #expect(AddressPolicy.parseObfuscatedIPv4(host) == nil)
    }

    @Test func literalHostDetection() {
        #expect(AddressPolicy.literalAddress(inHost: "[::1]") == IPAddress("::1"))
        #expect(AddressPolicy.literalAddress(inHost: "0x7f.1") == IPAddress("127.0.0.1"))
        #expect(AddressPolicy.literalAddress(inHost: "feeds.example.com") == nil)
        #expect(AddressPolicy.literalAddress(inHost: "0x7f.1").map { AddressPolicy.verdict(for: $0) } != .allowed)
    }
}
