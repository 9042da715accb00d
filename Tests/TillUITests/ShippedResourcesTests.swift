import Foundation
import Testing
@testable import TillUI

/// The themes and keymaps built into the binary are exactly the shipped files: a file changed without
/// running `scripts/embed-resources` fails here (the test never regenerates anything itself).
@Suite struct ShippedResourcesTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func files(_ kind: String) throws -> [String: String] {
        let dir = repo.appendingPathComponent(kind)
        var out: [String: String] = [:]
        for f in try FileManager.default.contentsOfDirectory(atPath: dir.path) where f.hasSuffix(".toml") {
            out[String(f.dropLast(5))] = try String(contentsOf: dir.appendingPathComponent(f), encoding: .utf8)
        }
        return out
    }

    @Test(arguments: ["themes", "keymaps"])
    func embeddedCopiesEqualTheShippedFiles(kind: String) throws {
        let files = try Self.files(kind)
        let embedded = kind == "themes" ? ShippedResources.themes : ShippedResources.keymaps
        #expect(!files.isEmpty)
        #expect(Set(files.keys) == Set(embedded.keys), "\(kind): shipped \(files.keys.sorted()), embedded \(embedded.keys.sorted()): run scripts/embed-resources")
        for (name, text) in files {
            #expect(embedded[name] == text, "\(kind)/\(name).toml differs from its built-in copy: run scripts/embed-resources and commit")
        }
    }

    @Test func theNamesTheIssuePromisesAreBuiltIn() throws {
        for n in ["default", "high-contrast", "monochrome"] {
            let t = try Theme.parse(try #require(ShippedResources.themes[n]), file: n, name: n)
            #expect(t.name == n)
        }
        for n in ["default", "keypad"] {
            _ = try Keymap.parse(try #require(ShippedResources.keymaps[n]), file: n, name: n)
        }
    }
}
