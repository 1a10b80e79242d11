import Testing
@testable import AddressPolicy

struct IPAddressParsingTests {
    static let valid: [(String, String)] = [
        ("192.0.2.1", "192.0.2.1"),
        ("0.0.0.0", "0.0.0.0"),
        ("255.255.255.255", "255.255.255.255"),
        ("::", "::"),
        ("::1", "::1"),
        ("2001:db8::1", "2001:db8::1"),
        ("2001:DB8:0:0:0:0:0:1", "2001:db8::1"),
        ("2001:0db8:0000:0000:0000:ff00:0042:8329", "2001:db8::ff00:42:8329"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
        ("1::", "1::"),
        ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"),
        ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("fe80::1:0:0:1", "fe80::1:0:0:1"),
        ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("::ffff:10.0.0.1", "::ffff:10.0.0.1"),
        ("::ffff:a00:1", "::ffff:10.0.0.1"),
        ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
        ("::1.2.3.4", "::102:304"),
        ("[::1]", "::1"),
        ("[2001:db8::1]", "2001:db8::1"),
    ]

    @Test(arguments: valid)
    func parsesAndFormats(input: String, expected: String) throws {
        let address = try #require(IPAddress(input))
        #expect(address.description == expected)
        // The canonical text must parse back to the same value.
        #expect(IPAddress(address.description) == address)
    }

    static let invalid: [String] = [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-1", "1.2.3.4 ",
        "127.1", "0x7f.0.0.1", "2130706433",
        ":::", "1:::2", "1::2::3", ":1::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7",
        "12345::", "g::1", "fe80::1%eth0", "fe80::1%25eth0", "1.2.3.4::", "::1.2.3",
        "1:2:3:4:5:6:7:1.2.3.4", "[1.2.3.4]", "[::1", "::1]", "example.com",
    ]

    @Test(arguments: invalid)
    func rejects(input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test func ipv4AndIPv6AreDistinct() {
        #expect(IPAddress("1.2.3.4") == .v4(0x0102_0304))
        #expect(IPAddress("::102:304") == .v6(0x0102_0304))
        #expect(IPAddress("1.2.3.4") != IPAddress("::1.2.3.4"))
    }
}

struct CIDRTests {
    static let valid: [(String, String)] = [
        ("10.0.0.0/8", "10.0.0.0/8"),
        ("10.1.2.3/8", "10.0.0.0/8"),
        ("fd00::/8", "fd00::/8"),
        ("192.0.2.7", "192.0.2.7/32"),
        ("2001:db8::1", "2001:db8::1/128"),
        ("0.0.0.0/0", "0.0.0.0/0"),
        ("::/0", "::/0"),
        (" 172.16.0.0/12 ", "172.16.0.0/12"),
    ]

    @Test(arguments: valid)
    func parses(input: String, expected: String) throws {
        #expect(try #require(CIDR(string: input)).description == expected)
    }

    @Test(arguments: ["10.0.0.0/33", "fd00::/129", "10.0.0.0/", "/8", "10.0.0.0/8/8", "10.0.0.0/-1",
                      "10.0.0.0/+8", "example.com/8", "fe80::%eth0/64"])
    func rejects(input: String) {
        #expect(CIDR(string: input) == nil)
    }

    @Test func containment() throws {
        let net = try #require(CIDR(string: "10.0.0.0/8"))
        #expect(net.contains(IPAddress("10.255.0.1")!))
        #expect(!net.contains(IPAddress("11.0.0.1")!))
        #expect(!net.contains(IPAddress("::ffff:10.0.0.1")!), "families never mix")
        let v6 = try #require(CIDR(string: "fd00::/8"))
        #expect(v6.contains(IPAddress("fd12::1")!))
        #expect(!v6.contains(IPAddress("fc00::1")!))
        #expect(try #require(CIDR(string: "0.0.0.0/0")).contains(IPAddress("8.8.8.8")!))
    }

    @Test func parsesOperatorList() throws {
        let list = try #require(CIDR.parseList("10.0.0.0/8, fd00::/8,"))
        #expect(list.map(\.description) == ["10.0.0.0/8", "fd00::/8"])
        #expect(CIDR.parseList("10.0.0.0/8,bogus") == nil)
    }
}
