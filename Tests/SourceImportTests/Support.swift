import FeedParser
import PulseConfig
import PulseModel
@testable import SourceImport
import Testing

/// Import settings as a deployment with the shipped categories, an empty database and no defaults.
func settings(stored: [SourceDefinition] = [], category: String? = nil, language: String? = nil,
              defaults: SourceDefaults = SourceDefaults()) -> ImportSettings {
    var settings = ImportSettings(defaults: defaults, categories: CategoryConfig.contractCategories, stored: stored)
    (settings.defaultCategory, settings.defaultLanguage) = (category, language)
    return settings
}

/// The text read as `format` and prepared as an import would.
func imported(_ text: String, as format: SourceFileFormat, name: String = "in.file",
              settings: ImportSettings = settings()) -> Result<[SourceConfig], ConfigError> {
    SourceImport.sources(in: SourceFile.read(Array(text.utf8), name: name, format: format, opml: OPMLParser.parse), settings: settings)
}

/// The problems of an import that must fail, as `line: message` (source labels left out).
func problems(_ text: String, as format: SourceFileFormat, settings: ImportSettings = settings()) -> [String] {
    switch imported(text, as: format, settings: settings) {
    case .success(let sources):
        Issue.record("expected problems, got \(sources.count) sources")
        return []
    case .failure(let error):
        return error.issues.map { "\($0.line.map(String.init) ?? "-"): \($0.message)" }
    }
}

func sources(_ text: String, as format: SourceFileFormat, settings: ImportSettings = settings()) throws -> [SourceConfig] {
    try imported(text, as: format, settings: settings).get()
}

let header = SourceTable.columns.joined(separator: "\t")

/// A TSV of the header and rows of tab-separated cells.
func tsv(_ rows: String...) -> String {
    ([header] + rows).joined(separator: "\n") + "\n"
}
