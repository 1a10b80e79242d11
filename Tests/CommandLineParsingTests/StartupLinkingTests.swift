import Foundation
import Testing

/// libcurl, libpq, libxml2 and CLD2 are opened on first use (Sources/CLazyLoad), because
/// loading them and their dependencies at exec was most of `--help`'s and the dumps' start-up;
/// gumbo is linked from its static archive (Package.swift, CGumboGuard) and Yams compiles in its own
/// libyaml, so neither is loaded either.
/// This test binary links every module the executable does, so a library put back in the link
/// (a `linkedLibrary`, a module map's `link`, a pkg-config `-l`) shows up in its DT_NEEDED here.
@Suite struct StartupLinkingTests {
    static let openedOnFirstUse = ["libcurl", "libpq", "libxml2", "libgumbo", "libcld2", "libicu", "libyaml"]

    @Test func theLazilyOpenedLibrariesAreNotNeededAtExec() throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let readelf = Process()
        readelf.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        readelf.arguments = ["--dynamic", "--wide", executable]
        let pipe = Pipe()
        readelf.standardOutput = pipe
        try readelf.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        readelf.waitUntilExit()
        #expect(readelf.terminationStatus == 0)
        let needed = output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libc.so") }, "readelf listed no libc: \(output.prefix(400))")
        for library in Self.openedOnFirstUse {
            #expect(!needed.contains { $0.contains(library) }, "\(library) is linked again: \(needed)")
        }
    }

    /// The service links FoundationEssentials, never swift-corelibs-foundation (`import Foundation`):
    /// linking it cost every start about 1 ms (CoreFoundation's initialiser, its relocations and
    /// type registrations). One `import Foundation` anywhere in the executable's modules, or a
    /// package that imports it, brings it back; `make release` also warns when it is linked.
    @Test func theServiceModulesDoNotImportFoundation() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources").standardizedFileURL
        let notInTheService: Set<String> = ["LanguageBench", "pulse-fuzz", "LoopbackHTTPServer"]
        var offenders: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            guard let module = file.split(separator: "/").first, !notInTheService.contains(String(module)) else { continue }
            let text = try String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)
            let imports = text.split(separator: "\n").filter {
                $0.trimmingCharacters(in: .whitespaces).range(of: #"^(@\w+ )*(public |internal |package )?import Foundation\b"#,
                                                             options: .regularExpression) != nil
            }
            if !imports.isEmpty { offenders.append(file) }
        }
        #expect(files.count > 100, "found no sources under \(sources.path)")
        #expect(offenders.isEmpty, "import Foundation in \(offenders)")
    }
}
