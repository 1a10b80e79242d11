import AddressPolicy
import Testing

/// `--metrics-address` and `websub.listen`: one parser.
@Suite struct ListenAddressTests {
    @Test func parsesIPv4IPv6AndLocalhost() throws {
        let v4 = try ListenAddress(parsing: "127.0.0.1:9464")
        #expect(v4.host == "127.0.0.1" && v4.port == 9464 && !v4.isIPv6 && v4.isLoopback)
        let v6 = try ListenAddress(parsing: "[::1]:9464")
        #expect(v6.host == "::1" && v6.port == 9464 && v6.isIPv6 && v6.isLoopback)
        #expect(v6.description == "[::1]:9464")
        let local = try ListenAddress(parsing: "localhost:1")
        #expect(local.host == "127.0.0.1" && local.port == 1)
        #expect(try ListenAddress(parsing: "127.9.9.9:0").isLoopback)
        #expect(try !ListenAddress(parsing: "0.0.0.0:9464").isLoopback)
        #expect(try !ListenAddress(parsing: "[::]:9464").isLoopback)
        #expect(try !ListenAddress(parsing: "192.0.2.1:9464").isLoopback)
        #expect(try ListenAddress(parsing: "[::ffff:127.0.0.1]:9464").isLoopback)
    }

    @Test(arguments: [
        ("127.0.0.1", ListenAddressError.missingPort("127.0.0.1")),
        ("127.0.0.1:", .missingPort("127.0.0.1:")),
        ("[::1]", .missingPort("[::1]")),
        ("[::1]9464", .missingPort("[::1]9464")),
        ("::1:9464", .invalidHost("::1:9464")),
        ("127.0.0.1:65536", .invalidPort("127.0.0.1:65536")),
        ("127.0.0.1:-1", .invalidPort("127.0.0.1:-1")),
        ("127.0.0.1:94a", .invalidPort("127.0.0.1:94a")),
        (":9464", .invalidHost(":9464")),
        ("example.org:9464", .invalidHost("example.org")),
        ("[::1:9464", .invalidHost("[::1:9464")),
    ])
    func refusesMalformedAddresses(input: String, expected: ListenAddressError) {
        #expect(throws: expected) { try ListenAddress(parsing: input) }
    }
}
