import FeedParser
import ArticleStore
import Glibc
import Migrations
import Postgres
import PulseConfig
import PulseModel
import SourceImport

/// `--import-sources FILE`: adds and updates sources from a TSV, CSV or OPML file with the source
/// sync `--migrate` uses, after validating every row as a feeds.yaml source (the config's defaults
/// and categories, and the database's categories). Any problem: all of them on standard error with
/// their lines, nothing written, status 64. Never deactivates a source the file does not list. A
/// file of more rows than `ImportLimit.maxRows` is refused (status 65) before it is read.
struct ImportSourcesMode {
    let context: RunContext
    let path: String
    let format: SourceFileFormat?
    let defaultCategory: String?
    let defaultLanguage: String?
    let dryRun: Bool

    /// The names in a summary's detail lines, then "and N more".
    static let namesShown = 20

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        let name = path == "-" ? "standard input" : path
        let bytes: [UInt8]
        switch LocalFile.contents(of: path == "-" ? "/dev/stdin" : path, limit: localInputLimit) {
        case .success(let read): bytes = read
        case .failure(.tooLarge(let limit)):
            context.fail("--import-sources \(name): larger than \(limit >> 20) MiB")
            return ExitStatus.dataError
        case .failure(.unreadable(let code)):
            context.fail("--import-sources \(name): cannot read it: \(String(cString: strerror(code)))")
            return ExitStatus.dataError
        }
        let format = format ?? SourceFileFormat.detect(path: path, bytes: bytes)
        if let refusal = ImportLimit.refusal(rows: ImportLimit.rowCount(bytes, format: format), format: format) {
            context.fail("--import-sources \(name): \(refusal)")
            return ExitStatus.dataError
        }
        let file = SourceFile.read(bytes, name: name, format: format, opml: OPMLParser.parse)
        return await context.withConnection(context.connectionSettings(conninfo)) { connection in
            try await importSources(from: file, into: connection)
        }
    }

    private func importSources(from file: SourceFile, into connection: PostgresConnection) async throws -> Int32 {
        let pending = try await Migrator(logger: context.logger).pending(on: connection)
        guard pending.isEmpty else {
            context.fail("the database schema is behind this binary (pending migrations "
                + pending.map { String($0.version) }.joined(separator: ", ") + "): run `pulse-ingest --migrate` first")
            return ExitStatus.unavailable
        }
        let store = ArticleStore(connection: connection)
        let storedCategories = try await store.storedCategories()
        let configured = context.configuration.categories
        // The config's categories, then the database's others: what a row may name.
        let categories = configured + storedCategories.filter { stored in !configured.contains { $0.slug == stored.slug } }
            .map { CategoryConfig(slug: $0.slug, name: $0.name, displayOrder: $0.displayOrder) }
        if let defaultCategory, let problem = SourceTable.categoryProblem(defaultCategory, in: categories) {
            context.fail("--category: \(problem)")
            return ExitStatus.usage
        }
        var settings = ImportSettings(defaults: context.configuration.defaults, categories: categories,
                                      stored: try await store.storedSources())
        (settings.defaultCategory, settings.defaultLanguage) = (defaultCategory, defaultLanguage)
        settings.allowedNetworks = context.allowedNetworks
        let sources: [SourceConfig]
        switch SourceImport.sources(in: file, settings: settings) {
        case .success(let valid): sources = valid
        case .failure(let error):
            let count = error.issues.count
            context.fail((["\(file.name): \(count) problem\(count == 1 ? "" : "s"), nothing imported"]
                          + error.issues.map { "  \($0)" }).joined(separator: "\n"))
            return ExitStatus.usage
        }
        // A config category the database lacks is created, as --migrate would.
        let missingCategories = context.configuration.categoryDefinitions.filter { category in
            !storedCategories.contains { $0.slug == category.slug }
        }
        let report = try await store.synchronize(categories: missingCategories, sources: sources,
                                                 deactivateUnlisted: false, dryRun: dryRun)
        let summary = MigrateMode.describe(report, origin: .file, namesAtMost: Self.namesShown)
        print("\(file.name): \(sources.count) source\(sources.count == 1 ? "" : "s") (\(file.format.rawValue))")
        print(dryRun ? "dry run, nothing written: " + summary : summary)
        return ExitStatus.success
    }
}

/// `--export-sources [--format tsv|csv|opml]`: every source in the database on standard output, in
/// a file `--import-sources` reads back to the same rows.
struct ExportSourcesMode {
    let context: RunContext
    let format: SourceFileFormat

    func run() async -> Int32 {
        guard let conninfo = context.requiredDatabaseURL() else { return ExitStatus.usage }
        var output = ""
        let status = await context.withConnection(context.connectionSettings(conninfo)) { connection in
            let store = ArticleStore(connection: connection)
            let sources = try await store.storedSources()
            let categories = try await store.storedCategories()
            do {
                output = try SourceExport.render(sources, categories: categories, as: format)
            } catch {
                context.fail("--export-sources --format \(format.rawValue): \(error)")
                return ExitStatus.dataError
            }
            return ExitStatus.success
        }
        guard status == ExitStatus.success else { return status }
        if let code = output.withUTF8({ writeAll(STDOUT_FILENO, UnsafeRawBufferPointer($0)) }) {
            context.fail("--export-sources: cannot write to standard output: \(String(cString: strerror(code)))")
            return ExitStatus.unavailable
        }
        return ExitStatus.success
    }
}
