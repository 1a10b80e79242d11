import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

/// Files far larger than a config: many rows of one name, and the row limit.
@Suite("large files")
struct LargeFileTests {
    /// 20,000 rows of one name and no slug get `news`, `news-2`, ... `news-20000`, each the first
    /// free one (the time is measured by hand, not asserted: README).
    @Test func manyRowsOfOneNameGetConsecutiveNumbers() throws {
        let count = 20_000
        var text = "name\tfeed_url\tcategory\tlanguage\n"
        for index in 0..<count { text += "News\thttps://h\(index).example/rss\tworld\ten\n" }
        let slugs = try sources(text, as: .tsv).map(\.slug)
        #expect(slugs.count == count)
        #expect(slugs == ["news"] + (2...count).map { "news-\($0)" })
    }

    @Test func aSearchStartsWhereTheLastStoppedButStillFindsTheFirstFreeNumber() {
        var taken = SlugRule.Taken(["news", "news-2", "news-4", "other"])
        #expect(taken.unused("news") == "news-3")
        taken.insert("news-3")
        #expect(taken.unused("news") == "news-5")
        #expect(taken.unused("other") == "other-2")
        #expect(taken.unused("fresh") == "fresh")
    }

    @Test func rowsAreCountedWithoutReadingThem() {
        let tsv = Array("slug\tname\n\na\tA\r\nb\tB\n\nc\tC".utf8)
        #expect(ImportLimit.rowCount(tsv, format: .tsv) == 3)
        let csv = Array("slug,name\r\na,\"two\nlines\"\r\nb,B\r\n\r\n".utf8)
        #expect(ImportLimit.rowCount(csv, format: .csv) == 2)
        let opml = Array("<opml><body><outline text=\"F\"><outline xmlUrl=\"x\"/></outline></body></opml>".utf8)
        #expect(ImportLimit.rowCount(opml, format: .opml) == 2)
        #expect(ImportLimit.rowCount([], format: .tsv) == 0)
    }

    @Test func aFileAboveTheLimitIsRefusedWithTheLimitAndWhatToDo() {
        #expect(ImportLimit.refusal(rows: ImportLimit.maxRows, format: .tsv) == nil)
        #expect(ImportLimit.refusal(rows: 1_000_000, format: .tsv) == "1,000,000 rows, more than the 100,000 one import "
                + "takes (each import is validated whole, then written in one transaction): split it into files of at "
                + "most 100,000 rows, each with the header row, and import them one after another; nothing was imported")
    }
}
