import Foundation
import Logging
import Synchronization
import Testing
@testable import Observability

extension Tag {
    @Tag static var integration: Self
}

/// Collects lines instead of writing to stderr.
final class LineCollector: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    var output: LogOutput { LogOutput { line in self.storage.withLock { $0.append(line) } } }
}

/// 2023-11-14T22:13:20.123Z
let fixedDate = Date(timeIntervalSince1970: 1_700_000_000.123)

func makeLogger(_ format: LogFormat, options: LogOptions = LogOptions(), level: Logger.Level = .trace,
                metadata: Logger.Metadata = ["run_id": "r-1"],
                provider: Logger.MetadataProvider? = nil,
                collector: LineCollector, label: String = "pulse.fetch") -> Logger {
    let handler = LineLogHandler(label: label, format: format, level: level, options: options,
                                 metadata: metadata, metadataProvider: provider,
                                 output: collector.output, clock: { fixedDate })
    return Logger(label: label) { _ in handler }
}

@Suite struct TextFormatTests {
    @Test func exactLineWithTimestampAndSortedQuotedMetadata() {
        let collector = LineCollector()
        let logger = makeLogger(.text, collector: collector)
        logger.info("fetched feed", metadata: ["source": "bbc-news", "note": "two words", "status": "\(200)"])
        #expect(collector.lines == [
            #"2023-11-14T22:13:20.123Z info [pulse.fetch] fetched feed note="two words" run_id=r-1 source=bbc-news status=200"#,
        ])
    }

    @Test func journaldStyleWithoutTimestampWithPriorityPrefix() {
        let collector = LineCollector()
        let options = LogOptions(includeTimestamp: false, journalPriorityPrefix: true)
        let logger = makeLogger(.text, options: options, metadata: [:], collector: collector)
        logger.warning("slow source")
        logger.error("db down", metadata: ["attempt": "3"])
        #expect(collector.lines == ["<4>warning [pulse.fetch] slow source", "<3>error [pulse.fetch] db down attempt=3"])
    }

    @Test func quotesValuesThatWouldBreakKeyValueGrammar() {
        #expect(LogLineFormatter.textValue("plain") == "plain")
        #expect(LogLineFormatter.textValue("") == #""""#)
        #expect(LogLineFormatter.textValue("a=b") == #""a=b""#)
        #expect(LogLineFormatter.textValue(#"say "hi" \ now"#) == #""say \"hi\" \\ now""#)
    }

    @Test func nestedMetadataFlattensToDottedKeysAndArraysRender() {
        let collector = LineCollector()
        let logger = makeLogger(.text, options: LogOptions(includeTimestamp: false), metadata: [:], collector: collector)
        logger.info("x", metadata: ["http": ["status": "304", "host": "example.org"], "tags": ["a", "b"]])
        #expect(collector.lines == [#"info [pulse.fetch] x http.host=example.org http.status=304 tags="[a, b]""#])
    }

    @Test func metadataPrecedenceHandlerThenProviderThenCall() {
        let collector = LineCollector()
        let provider = Logger.MetadataProvider { ["trace": "t-9", "source": "from-provider"] }
        let logger = makeLogger(.text, options: LogOptions(includeTimestamp: false),
                                metadata: ["source": "from-handler", "run_id": "r-1"],
                                provider: provider, collector: collector)
        logger.info("a")
        logger.info("b", metadata: ["source": "from-call"])
        #expect(collector.lines == [
            "info [pulse.fetch] a run_id=r-1 source=from-provider trace=t-9",
            "info [pulse.fetch] b run_id=r-1 source=from-call trace=t-9",
        ])
    }

    @Test func levelBelowThresholdIsNotWritten() {
        let collector = LineCollector()
        let logger = makeLogger(.text, options: LogOptions(includeTimestamp: false), level: .notice,
                                metadata: [:], collector: collector)
        logger.info("dropped")
        logger.notice("kept")
        #expect(collector.lines == ["notice [pulse.fetch] kept"])
    }
}

@Suite struct JSONFormatTests {
    @Test func exactObjectPerLine() {
        let collector = LineCollector()
        let logger = makeLogger(.json, collector: collector)
        logger.info("fetched feed", metadata: ["source": "bbc-news", "items": "12"])
        #expect(collector.lines == [
            #"{"ts":"2023-11-14T22:13:20.123Z","level":"info","label":"pulse.fetch","msg":"fetched feed","items":"12","run_id":"r-1","source":"bbc-news"}"#,
        ])
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() {
        #expect(LogLineFormatter.jsonString(#"a"b\c"#) == #""a\"b\\c""#)
        #expect(LogLineFormatter.jsonString("t\u{01}\u{1F}\u{7F}\u{85}\n\r\t\u{08}\u{0C}") ==
            #""t\u0001\u001f\u007f\u0085\n\r\t\b\f""#)
        #expect(LogLineFormatter.jsonString("\u{2028}x\u{2029}") == #""\u2028x\u2029""#)
        #expect(LogLineFormatter.jsonString("héllo ✓") == "\"héllo ✓\"")
    }

    @Test func messageAndValuesAreEscapedInsideTheLine() {
        let collector = LineCollector()
        let logger = makeLogger(.json, options: LogOptions(includeTimestamp: false), metadata: [:], collector: collector)
        logger.info(#"title "quoted" C:\path"#, metadata: ["url": #"http://x/?q="a""#])
        #expect(collector.lines == [
            #"{"level":"info","label":"pulse.fetch","msg":"title \"quoted\" C:\\path","url":"http://x/?q=\"a\""}"#,
        ])
    }

    @Test func metadataCannotShadowEnvelopeKeys() {
        let collector = LineCollector()
        let logger = makeLogger(.json, options: LogOptions(includeTimestamp: false), metadata: [:], collector: collector)
        logger.info("real", metadata: ["msg": "fake", "level": "critical"])
        #expect(collector.lines == [
            #"{"level":"info","label":"pulse.fetch","msg":"real","_level":"critical","_msg":"fake"}"#,
        ])
    }

    @Test func errorOfTheEventIsIncluded() {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom" } }
        let collector = LineCollector()
        let logger = makeLogger(.json, options: LogOptions(includeTimestamp: false), metadata: [:], collector: collector)
        logger.error("failed", error: Boom())
        #expect(collector.lines == [#"{"level":"error","label":"pulse.fetch","msg":"failed","error":"boom"}"#])
    }
}

@Suite struct InjectionAndSizeTests {
    @Test(arguments: LogFormat.allCases)
    func controlAndBidiCharactersAreStripped(format: LogFormat) {
        let collector = LineCollector()
        let logger = makeLogger(format, options: LogOptions(includeTimestamp: false), metadata: [:], collector: collector)
        logger.info("line1\nERROR forged\u{1B}[31m\u{202E}txt.exe\u{0}",
                    metadata: ["title": "a\r\nb\u{2066}c\u{85}d", "ke\ny": "v"])
        let line = try! #require(collector.lines.first)
        #expect(collector.lines.count == 1)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{202E}" || $0 == "\u{2066}" || $0 == "\u{85}" })
        switch format {
        case .text:
            #expect(line == #"info [pulse.fetch] line1 ERROR forged[31mtxt.exe ke_y=v title="a  bcd""#)
        case .json:
            #expect(line == #"{"level":"info","label":"pulse.fetch","msg":"line1 ERROR forged[31mtxt.exe","ke_y":"v","title":"a  bcd"}"#)
        }
    }

    @Test func longValuesAreCappedOnACharacterBoundary() {
        let collector = LineCollector()
        let logger = makeLogger(.text, options: LogOptions(includeTimestamp: false, maxValueBytes: 2048),
                                metadata: [:], collector: collector)
        logger.info("m", metadata: ["body": .string(String(repeating: "é", count: 3000))])
        let line = try! #require(collector.lines.first)
        let value = String(line.dropFirst("info [pulse.fetch] m body=".count))
        #expect(value.hasSuffix("…"))
        #expect(value.utf8.count <= 2048)
        #expect(value.utf8.count >= 2040)
        #expect(value.dropLast().allSatisfy { $0 == "é" })
    }

    @Test func capLeavesShortTextAlone() {
        #expect(LogSanitizer.cap("short", maxBytes: 10) == "short")
        #expect(LogSanitizer.cap("abcdefghijk", maxBytes: 6) == "abc…")
    }

    @Test func longMessagesAreCapped() {
        let collector = LineCollector()
        let logger = makeLogger(.json, options: LogOptions(includeTimestamp: false, maxMessageBytes: 100),
                                metadata: [:], collector: collector)
        logger.info("\(String(repeating: "x", count: 10_000))")
        let line = try! #require(collector.lines.first)
        #expect(line.utf8.count < 200)
        #expect(line.contains("…"))
    }
}

@Suite struct RedactionTests {
    @Test func sensitiveKeysAreRedactedInBothFormats() {
        let metadata: Logger.Metadata = [
            "password": "hunter2", "db_password": "x", "DATABASE_URL": "postgres://u:p@h/db",
            "api_token": "tok", "client_secret": "s", "auth": ["secret": "deep", "user": "bob"], "user": "alice",
        ]
        let text = LineCollector()
        makeLogger(.text, options: LogOptions(includeTimestamp: false), metadata: [:], collector: text)
            .info("login", metadata: metadata)
        #expect(text.lines == [
            "info [pulse.fetch] login DATABASE_URL=<redacted> api_token=<redacted> auth.secret=<redacted> auth.user=bob "
                + "client_secret=<redacted> db_password=<redacted> password=<redacted> user=alice",
        ])
        let json = LineCollector()
        makeLogger(.json, options: LogOptions(includeTimestamp: false), metadata: [:], collector: json)
            .info("login", metadata: ["token": "abc", "user": "alice"])
        #expect(json.lines == [#"{"level":"info","label":"pulse.fetch","msg":"login","token":"<redacted>","user":"alice"}"#])
        #expect(!text.lines[0].contains("hunter2") && !text.lines[0].contains("deep"))
    }

    @Test func sensitiveKeysAreRecognised() {
        #expect(LogRedaction.isSensitive(key: "Secret_Key") && LogRedaction.isSensitive(key: "refresh_token"))
        #expect(LogRedaction.isSensitive(key: "DATABASE_URL"))
        #expect(!LogRedaction.isSensitive(key: "source_url"))
    }

    @Test func credentialsInURLsAreScrubbedFromMessagesAndValues() {
        #expect(LogRedaction.scrubURLCredentials("connect postgres://user:pw@db:5432/x failed")
            == "connect postgres://<redacted>@db:5432/x failed")
        #expect(LogRedaction.scrubURLCredentials("see https://example.org/a@b and ftp://a@h")
            == "see https://example.org/a@b and ftp://<redacted>@h")
        #expect(LogRedaction.scrubURLCredentials("no urls here") == "no urls here")
        let collector = LineCollector()
        makeLogger(.text, options: LogOptions(includeTimestamp: false), metadata: [:], collector: collector)
            .error("libpq: could not connect to postgresql://svc:s3cret@10.0.0.5/pulse", metadata: ["dsn": "postgres://a:b@h/d"])
        #expect(collector.lines == [
            "error [pulse.fetch] libpq: could not connect to postgresql://<redacted>@10.0.0.5/pulse dsn=postgres://<redacted>@h/d",
        ])
    }
}

@Suite struct LoggingSetupTests {
    @Test(arguments: LogFormat.allCases)
    func runIDIsOnEveryLine(format: LogFormat) {
        let collector = LineCollector()
        let handler = LoggingSetup.makeHandler(label: "pulse.daemon", format: format, level: .info, runID: "run-42",
                                               output: collector.output)
        var logger = Logger(label: "pulse.daemon") { _ in handler }
        logger.info("one")
        logger[metadataKey: "source"] = "bbc"
        logger.warning("two")
        #expect(collector.lines.count == 2)
        for line in collector.lines {
            #expect(line.contains(format == .text ? "run_id=run-42" : #""run_id":"run-42""#))
        }
        #expect(collector.lines[0].range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, options: .regularExpression) != nil
            || collector.lines[0].contains(#""ts":""#))
    }

    @Test func journalDetectionDropsTimestampAndAddsPriority() {
        #expect(LogOptions.detect(journalStream: "8:12345") == LogOptions(includeTimestamp: false, journalPriorityPrefix: true))
        #expect(LogOptions.detect(journalStream: nil) == LogOptions())
    }

    @Test func timestampIsUTCWithMilliseconds() {
        #expect(LogLineFormatter.iso8601(fixedDate) == "2023-11-14T22:13:20.123Z")
        #expect(LogLineFormatter.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(LogLineFormatter.iso8601(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
    }

    @Test func formatRawValuesMatchTheCommandLineSpelling() {
        #expect(LogFormat(rawValue: "text") == .text)
        #expect(LogFormat(rawValue: "json") == .json)
        #expect(LogFormat(rawValue: "xml") == nil)
    }
}
