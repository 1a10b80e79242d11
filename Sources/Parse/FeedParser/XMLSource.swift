import Glibc
internal import PulseModel
internal import CLibXML2

/// Hardened libxml2 set-up. Parser options (checked against libxml2 2.9.14):
///   XML_PARSE_NONET       no network access at all
///   XML_PARSE_IGNORE_ENC  the bytes are already UTF-8 (CharsetDecoder), ignore the declaration
///   XML_PARSE_COMPACT     smaller text nodes
/// and deliberately never XML_PARSE_NOENT (entity substitution), XML_PARSE_DTDLOAD / DTDATTR /
/// DTDVALID (external DTDs and external parameter entities), XML_PARSE_XINCLUDE, XML_PARSE_HUGE
/// (keeps libxml2's own depth, name and text-size limits). Without NOENT an entity reference stays
/// a reference node whose content the walker never reads, so internal entities (billion laughs,
/// quadratic blow-up) contribute nothing and external ones are never fetched. As a second wall a
/// deny-all external entity loader is installed process-wide: this daemon never wants libxml2 to
/// open a file or URL on its own.
enum XMLSource {
    static let baseOptions = Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_IGNORE_ENC.rawValue
        | XML_PARSE_COMPACT.rawValue)
    static let recoverOptions = baseOptions | Int32(bitPattern: XML_PARSE_RECOVER.rawValue)

    /// Runs once: libxml2 global initialisation plus the deny-all loader.
    static let setUp: Void = {
        xmlInitParser()
        xmlSetExternalEntityLoader { _, _, _ in nil }
    }()

    /// Streaming reader over UTF-8 bytes (memory grows with one item, not the document).
    static func streamingReader(_ bytes: UnsafeBufferPointer<UInt8>, url: String?, log: ErrorLog) -> xmlTextReaderPtr? {
        _ = setUp
        guard bytes.count < Int(Int32.max) else { return nil }
        let reader = bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
            xmlReaderForMemory($0, Int32(bytes.count), url, nil, baseOptions)
        }
        guard let reader else { return nil }
        xmlTextReaderSetStructuredErrorHandler(reader, { ctx, error in
            guard let ctx, let error else { return }
            Unmanaged<ErrorLog>.fromOpaque(ctx).takeUnretainedValue().record(error)
        }, Unmanaged.passUnretained(log).toOpaque())
        return reader
    }

    /// Recovery parse: push parser in RECOVER mode fed in chunks so the CPU budget is checked
    /// between chunks; returns the (possibly partial) tree, walked afterwards with xmlReaderWalker.
    static func recoveredDocument(_ bytes: UnsafeBufferPointer<UInt8>, url: String?, log: ErrorLog,
                                  budget: CPUBudget) throws(FeedParseError) -> xmlDocPtr? {
        _ = setUp
        guard let ctxt = xmlCreatePushParserCtxt(nil, nil, nil, 0, url) else { return nil }
        defer { xmlFreeParserCtxt(ctxt) }
        _ = xmlCtxtUseOptions(ctxt, recoverOptions)
        ctxt.pointee._private = Unmanaged.passUnretained(log).toOpaque()
        ctxt.pointee.sax.pointee.serror = { ctx, error in
            guard let ctx, let error else { return }
            let parser = ctx.assumingMemoryBound(to: xmlParserCtxt.self)
            guard let box = parser.pointee._private else { return }
            Unmanaged<ErrorLog>.fromOpaque(box).takeUnretainedValue().record(error)
        }
        let chunk = 64 * 1024
        var offset = 0
        let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
        repeat {
            let size = min(chunk, bytes.count - offset)
            let last: Int32 = offset + size >= bytes.count ? 1 : 0
            _ = xmlParseChunk(ctxt, base + offset, Int32(size), last)
            offset += size
            if budget.exceeded() {
                if let doc = ctxt.pointee.myDoc { xmlFreeDoc(doc); ctxt.pointee.myDoc = nil }
                throw .cpuBudgetExceeded
            }
        } while offset < bytes.count
        let doc = ctxt.pointee.myDoc
        ctxt.pointee.myDoc = nil
        return doc
    }
}

/// Collects libxml2's structured errors for one parse, and stops the parse once its CPU budget is
/// spent. The budget is otherwise checked between libxml2 calls, but one call can be quadratic in
/// its errors: libxml2 2.9 copies the whole comment read so far into every "Double hyphen within
/// comment" error, so a 1 MB comment of `<!--<!--...` cost 6 s of CPU in one xmlParseChunk.
/// Stopping the parser (xmlStopParser) makes libxml2 drop further errors and leave the loop.
final class ErrorLog {
    var firstFatal: (line: Int, message: String)?
    var fatalCount = 0
    /// An undeclared entity was met (e.g. `&eacute;` under an external DTD that was not loaded):
    /// the strict parse lost text, so the recovery pass (with EntityRepair) should run.
    var undeclaredEntity = false
    let budget: CPUBudget
    /// The parse was stopped from the error handler because the budget was spent.
    private(set) var stoppedOverBudget = false

    init(budget: CPUBudget) {
        self.budget = budget
    }

    func record(_ error: xmlErrorPtr) {
        let e = error.pointee
        if !stoppedOverBudget, budget.exceeded(), let parser = e.ctxt {
            stoppedOverBudget = true
            xmlStopParser(parser.assumingMemoryBound(to: xmlParserCtxt.self))
        }
        if e.code == XML_ERR_UNDECLARED_ENTITY.rawValue || e.code == XML_WAR_UNDECLARED_ENTITY.rawValue {
            undeclaredEntity = true
        }
        guard e.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        fatalCount += 1
        if firstFatal == nil {
            var message = e.message.map { String(cString: $0) } ?? "unknown error"
            while message.last == "\n" || message.last == " " { message.removeLast() }
            firstFatal = (Int(e.line), TextSanitizer.inline(String(message.prefix(200))))
        }
    }

    var error: FeedParseError {
        if let f = firstFatal { return .xml(line: f.line, message: f.message) }
        return .xml(line: 0, message: "unreadable document")
    }
}

