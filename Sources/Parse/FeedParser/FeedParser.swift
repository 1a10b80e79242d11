import Glibc
internal import PulseModel
internal import CLibXML2
internal import CanonicalURL

/// Entry point: bytes of one feed document -> FeedDocument.
///
/// 1. CharsetDecoder turns the bytes into UTF-8 (BOM, labels, the usual lies, repair).
/// 2. A strict streaming pass (xmlTextReader) walks the document; memory grows with one item.
///    Whatever precedes the document (whitespace, BOM, PHP warnings) is skipped first.
/// 3. If that fails with an XML error (or lost undeclared entities), the bytes are repaired
///    (EntityRepair: bare `&`, HTML entities, controls; DocumentRepair: unbalanced tags, truncation)
///    and parsed strictly again; only if that still fails does libxml2's recovery parser rebuild
///    what it can. Either result is used (`recovered = true`) when it is sane: a feed root with a
///    title or at least one item.
/// 4. Otherwise the first XML error is thrown with its line.
public enum FeedParser {
    public static func parse(_ bytes: [UInt8], contentType: String? = nil, baseURL: String? = nil,
                             options: FeedParserOptions = FeedParserOptions()) throws(FeedParseError) -> FeedDocument {
        let result: Result<FeedDocument, FeedParseError> = bytes.withUnsafeBufferPointer { input in
            guard input.contains(where: { $0 > 0x20 }) else { return .failure(.empty) }
            let decoded = CharsetDecoder.decode(input, contentType: contentType)
            let run = { (utf8: UnsafeBufferPointer<UInt8>) -> Result<FeedDocument, FeedParseError> in
                do throws(FeedParseError) {
                    var doc = try parseUTF8(utf8, baseURL: baseURL, options: options)
                    doc.encoding = decoded.encoding
                    doc.encodingRepaired = decoded.repaired
                    return .success(doc)
                } catch {
                    return .failure(error)
                }
            }
            if let transcoded = decoded.transcoded {
                return transcoded.withUnsafeBufferPointer(run)
            }
            return run(UnsafeBufferPointer(rebasing: input[decoded.offset...]))
        }
        // Text that only mentions a feed element further down (a README, an error page in plain
        // text) is named for what it is, not for the element found inside it.
        if case .failure(.notAFeed) = result, let start = DocumentRepair.leadingText(bytes) {
            throw .notXML(start: start)
        }
        return try result.get()
    }

    static func parseUTF8(_ whole: UnsafeBufferPointer<UInt8>, baseURL: String?,
                          options: FeedParserOptions) throws(FeedParseError) -> FeedDocument {
        let utf8 = UnsafeBufferPointer(rebasing: whole[DocumentRepair.documentStart(whole)...])
        guard utf8.count > 0 else { throw .empty }
        if let refusal = MarkupLimits.refusal(utf8, field: "the document") { throw refusal }
        let budget = CPUBudget(seconds: options.cpuBudgetSeconds)
        let hasXMLBase = contains(utf8, "xml:base")
        let url = baseURL.flatMap(StoredURL.check)
        let pass = Pass(url: url, hasXMLBase: hasXMLBase, options: options, budget: budget)

        // Strict streaming pass.
        var strictError = FeedParseError.empty
        var lossy: FeedDocument?
        do throws(FeedParseError) {
            let strict = try pass.strict(utf8)
            // Entities were dropped (e.g. &eacute; under an unloaded DTD): try to do better.
            guard strict.lostEntities else { return strict.document }
            lossy = strict.document
        } catch {
            switch error {
            case .xml, .empty: strictError = error
            default: throw error
            }
        }
        if budget.exceeded() { throw .cpuBudgetExceeded }

        // Repaired bytes, strictly when the repairs made the document well-formed.
        let entities = EntityRepair.repair(utf8)
        let repaired = entities.bytes.withUnsafeBufferPointer(DocumentRepair.balanceTags)
        if entities.changed || repaired != entities.bytes {
            do throws(FeedParseError) {
                let strict = try repaired.withUnsafeBufferPointer { (b) throws(FeedParseError) in try pass.strict(b) }
                if !strict.lostEntities, strict.sane {
                    var doc = strict.document
                    doc.recovered = true
                    return doc
                }
            } catch {
                switch error {
                case .xml, .empty: break
                default: throw error
                }
            }
        }

        // Recovery pass.
        do throws(FeedParseError) {
            if let doc = try repaired.withUnsafeBufferPointer({ (b) throws(FeedParseError) in try pass.recovered(b) }) {
                return doc
            }
        } catch {
            switch error {
            case .markupTooComplex: throw error
            case .cpuBudgetExceeded, .depthLimitExceeded, .notAFeed: if lossy == nil { throw error }
            default: break
            }
        }
        if let lossy { return lossy }
        throw strictError
    }

    /// The parse settings shared by the strict and recovery passes of one document.
    struct Pass {
        let url: String?
        let hasXMLBase: Bool
        let options: FeedParserOptions
        let budget: CPUBudget

        struct Strict {
            var document: FeedDocument
            var lostEntities: Bool
            /// At least one usable entry, or an empty-but-titled feed.
            var sane: Bool
        }

        func strict(_ utf8: UnsafeBufferPointer<UInt8>) throws(FeedParseError) -> Strict {
            let log = ErrorLog(budget: budget)
            guard let reader = XMLSource.streamingReader(utf8, url: url, log: log) else { throw FeedParseError.empty }
            defer { xmlFreeTextReader(reader) }
            var walker = FeedWalker(reader: reader, options: options, baseURL: url, hasXMLBase: hasXMLBase,
                                    budget: budget, log: log)
            do throws(FeedParseError) {
                try walker.run()
            } catch {
                throw log.stoppedOverBudget ? .cpuBudgetExceeded : error
            }
            if log.stoppedOverBudget { throw .cpuBudgetExceeded }
            let doc = FeedParser.document(walker, recovered: false)
            return Strict(document: doc, lostEntities: log.undeclaredEntity,
                          sane: !doc.items.isEmpty || (walker.itemCount == 0 && doc.title != nil))
        }

        /// libxml2's recovery parser over (already repaired) bytes; nil when the result is not sane.
        func recovered(_ repaired: UnsafeBufferPointer<UInt8>) throws(FeedParseError) -> FeedDocument? {
            let log = ErrorLog(budget: budget)
            guard let docPtr = try XMLSource.recoveredDocument(repaired, url: url, log: log, budget: budget) else { return nil }
            defer { xmlFreeDoc(docPtr) }
            guard let reader = xmlReaderWalker(docPtr) else { return nil }
            defer { xmlFreeTextReader(reader) }
            var walker = FeedWalker(reader: reader, options: options, baseURL: url, hasXMLBase: hasXMLBase,
                                    budget: budget, log: log)
            walker.internNames = true
            try walker.run()
            // Sane: at least one usable entry, or an empty-but-titled feed with few errors.
            let doc = FeedParser.document(walker, recovered: true)
            guard walker.format != nil, !doc.items.isEmpty || (walker.itemCount == 0 && doc.title != nil && log.fatalCount <= 2) else {
                return nil
            }
            return doc
        }
    }

    static func document(_ walker: FeedWalker, recovered: Bool) -> FeedDocument {
        let h = walker.header
        var ignored: [String] = []
        let title = (h.title ?? h.dcTitle).map { TextSanitizer.truncate(EntryMapper.inlineText($0, images: &ignored), cap: FieldLimits.title) }
        let language = h.language.map { TextSanitizer.inline($0).lowercased() }
            .flatMap { l -> String? in
                let ok = !l.isEmpty && l.utf8.count <= FieldLimits.language
                    && l.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 || $0 == 95 }
                return ok ? l : nil
            }
        let ttl = h.ttl.flatMap { Int($0.trimming(" \t\r\n")) }.flatMap { (0...10_080).contains($0) ? $0 : nil }
        var collector = walker.collector
        let items = collector.finish()
        return FeedDocument(format: walker.format ?? .rss20, recovered: recovered, encoding: "utf-8",
                            encodingRepaired: false, title: title?.isEmpty == true ? nil : title,
                            link: h.link.flatMap(StoredURL.check), language: language, ttlMinutes: ttl,
                            items: items, dropped: collector.dropped, droppedCount: collector.droppedCount,
                            droppedByCap: collector.droppedByCap,
                            hub: h.hub.flatMap(StoredURL.check), selfURL: h.selfLink.flatMap(StoredURL.check))
    }

    private static func contains(_ hay: UnsafeBufferPointer<UInt8>, _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        guard hay.count >= n.count, let first = n.first, let base = hay.baseAddress else { return false }
        var i = 0
        let last = hay.count - n.count
        while i <= last {
            // memchr finds candidate starts at memory speed.
            guard let hit = memchr(base + i, Int32(first), last - i + 1) else { return false }
            let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var k = 1
            while k < n.count, hay[at + k] == n[k] { k += 1 }
            if k == n.count { return true }
            i = at + 1
        }
        return false
    }
}
