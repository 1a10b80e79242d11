import Foundation
import Testing
import FeedParser
import CanonicalURL

/// Each hostile document must either fail with an error or parse to something that contains
/// none of the expanded or external content.
@Suite("Hostile documents")
struct HostileTests {
    static func allText(_ doc: FeedDocument) -> String {
        ([doc.title ?? ""] + doc.items.flatMap { [$0.title, $0.summary ?? "", $0.content ?? "", $0.url] }
            + doc.dropped.compactMap(\.title)).joined(separator: "|")
    }

    @Test func billionLaughs() {
        do {
            let doc = try Fixture.parse("billion-laughs.xml")
            #expect(!Self.allText(doc).contains("lollol"))
        } catch let error as FeedParseError {
            #expect(error.description.contains("XML error") || error == .cpuBudgetExceeded)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test(arguments: ["billion-laughs-attribute.xml", "quadratic-attribute.xml"])
    func entitiesInAttributesAreNotExpanded(_ name: String) {
        do {
            let doc = try Fixture.parse(name)
            #expect(!Self.allText(doc).contains("lollol"))
            for item in doc.items {
                #expect((item.mediaURL ?? "").count < 100, "\(name)")
                #expect(!(item.mediaURL ?? "").contains("AAAA"))
            }
        } catch let error as FeedParseError {
            #expect(error.description.contains("XML error"), "\(name): \(error)")
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func quadraticBlowup() throws {
        let doc = try Fixture.parse("quadratic.xml")
        #expect(!Self.allText(doc).contains("AAAA"))
        #expect(doc.items.first?.title == "Blow up")
        #expect(doc.items.first?.summary == nil)
    }

    @Test func externalFileEntity() throws {
        let doc = try Fixture.parse("xxe-file.xml")
        let text = Self.allText(doc)
        #expect(!text.contains("root:"))
        #expect(doc.items.first?.title == "Secret")
        #expect(doc.items.first?.summary == "leak:")
    }

    @Test func externalHTTPEntity() throws {
        let doc = try Fixture.parse("xxe-http.xml")
        #expect(doc.items.first?.title == "Remote")
    }

    @Test func externalDTDNotLoaded() throws {
        let doc = try Fixture.parse("external-dtd.xml")
        #expect(!Self.allText(doc).contains("root:"))
        #expect(doc.items.first?.title.hasPrefix("Item") == true)
        #expect(doc.items.first?.title.hasSuffix("tail") == true)
    }

    @Test func parameterEntities() throws {
        let doc = try Fixture.parse("parameter-entities.xml")
        let text = Self.allText(doc)
        #expect(!text.contains("root:"))
        #expect(!text.contains("INJECTED-VALUE"))
        #expect(doc.items.first?.title == "PE item")
    }

    @Test func depthLimit() {
        let deep = "<rss version=\"2.0\"><channel><title>d</title><item>" + String(repeating: "<x>", count: 300)
            + String(repeating: "</x>", count: 300) + "</item></channel></rss>"
        #expect(throws: FeedParseError.self) { try parseString(deep) }
        let shallow = "<rss><channel><title>d</title>" + String(repeating: "<x>", count: 20) + String(repeating: "</x>", count: 20) + "</channel></rss>"
        #expect(throws: FeedParseError.depthLimitExceeded(10)) { try parseString(shallow, options: FeedParserOptions(maxDepth: 10)) }
    }

    @Test func cpuBudget() {
        var xml = "<rss version=\"2.0\"><channel><title>big</title>"
        for i in 0..<3000 { xml += "<item><title>t\(i)</title><link>https://b.example/\(i)</link><description>&lt;p&gt;x&lt;/p&gt;</description></item>" }
        xml += "</channel></rss>"
        #expect(throws: FeedParseError.cpuBudgetExceeded) { try parseString(xml, options: FeedParserOptions(cpuBudgetSeconds: 0)) }
        #expect(FeedParseError.cpuBudgetExceeded.description == "CPU budget exceeded")
    }

    @Test func unsafeLinksRejected() {
        #expect(StoredURL.check("https://example.com/a") == "https://example.com/a")
        #expect(StoredURL.check("ftp://example.com/a") == nil)
        #expect(StoredURL.check("https://user:pw@example.com/") == nil)
        #expect(StoredURL.check("http://127.0.0.1/") == nil)
        #expect(StoredURL.check("http://10.1.2.3/") == nil)
        #expect(StoredURL.check("http://2130706433/") == nil)
        #expect(StoredURL.check("http://0x7f.1/") == nil)
        #expect(StoredURL.check("http://[::1]/") == nil)
        #expect(StoredURL.check("http://[fd00::1]/") == nil)
        #expect(StoredURL.check("https://example.com/\u{202E}gpj.exe") == nil)
        #expect(StoredURL.check("http://8.8.8.8/") == "http://8.8.8.8/")
        #expect(StoredURL.check("https://1e100.net/") == "https://1e100.net/")
        #expect(StoredURL.check("https://localhost/") == nil)
        // The address policy's ranges, however the literal is written (the store refuses them too).
        #expect(StoredURL.check("http://[0:0:0:0:0:0:0:1]/") == nil)
        #expect(StoredURL.check("http://[::ffff:127.0.0.1]/") == nil)
        #expect(StoredURL.check("http://[::ffff:7f00:1]/") == nil)
        #expect(StoredURL.check("http://[fe80::1%25eth0]/") == nil)
        #expect(StoredURL.check("http://169.254.169.254/latest") == nil)
        #expect(StoredURL.check("http://100.64.0.1/") == nil)
        #expect(StoredURL.check("http://010.0.0.1/") == nil)
        #expect(StoredURL.check("http://[2606:4700::1111]/") == "http://[2606:4700::1111]/")
    }
}

@Suite("Declared entities")
struct DeclaredEntityTests {
    @Test func smallLeafEntitiesContributeTextNestedAndLongOnesDoNot() throws {
        let doc = try Fixture.parse("internal-entities.xml")
        #expect(doc.recovered == false)
        #expect(doc.items.first?.title == "Café créme")
    }
}
