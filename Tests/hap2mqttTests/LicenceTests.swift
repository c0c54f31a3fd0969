import Foundation
import Testing

/// The licence as a user or a packager finds it: `LICENSE`, the names of it in `Package.swift` and
/// README, and `NOTICE`, whose every entry names files that are in the repository.
@Suite("The licence and NOTICE")
struct LicenceTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Repository.file(path), encoding: .utf8)
    }

    @Test("LICENSE is the Apache License 2.0, and Package.swift and README say so")
    func licence() throws {
        let licence = try Self.text("LICENSE")
        #expect(licence.contains("Apache License\n                           Version 2.0, January 2004"))
        #expect(licence.contains("END OF TERMS AND CONDITIONS"))
        #expect(try Self.text("Package.swift").contains("Licensed under the Apache License 2.0 (LICENSE)"))
        let readme = try Self.text("README.md")
        #expect(readme.contains("## Licence\n\nhap2mqtt is licensed under the Apache License 2.0 (`LICENSE`)"))
    }

    @Test("every file NOTICE credits exists, with the source and licence beside it")
    func notice() throws {
        let notice = try Self.text("NOTICE")
        // Entries: "N. Title", then "Files:" (continued on lines indented to the same column), and
        // "Copyright" or "Licence" in the same entry.
        let entries = notice.components(separatedBy: "\n\n\n").filter { $0.contains("Files:") }
        #expect(entries.count == 5, "\(entries.count) entries")
        for entry in entries {
            let lines = entry.split(separator: "\n", omittingEmptySubsequences: false)
            let start = try #require(lines.firstIndex { $0.contains("Files:") })
            let column = try #require(lines[start].range(of: "Files:")).upperBound
            let indent =
                lines[start][column...].prefix { $0 == " " }.count
                + lines[start].distance(
                    from: lines[start].startIndex, to: column)
            var paths: [String] = []
            for (offset, line) in lines[start...].enumerated() {
                guard offset == 0 || (line.count > indent && line.prefix(indent).allSatisfy { $0 == " " }) else {
                    break
                }
                let field = line.dropFirst(indent).split(separator: " ").first.map(String.init) ?? ""
                if field.contains("/") { paths.append(field) }
            }
            #expect(!paths.isEmpty || lines[start].contains("the same"), "\(entry)")
            for path in paths {
                #expect(FileManager.default.fileExists(atPath: Repository.file(path).path), "NOTICE names \(path)")
            }
            #expect(entry.contains("Copyright") || entry.contains("Licence"), "\(entry)")
        }
    }
}
