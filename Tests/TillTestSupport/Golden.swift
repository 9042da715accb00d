import Foundation

/// Golden files: text a test compares with a committed file. `UPDATE_GOLDEN=1 swift test` is the one switch that
/// rewrites them (every golden test of every target), prints what changed, and compares nothing; under CI it is
/// refused, where it would hide every difference.
public enum GoldenFile {
    /// Nil when `text` matches the file (or the file was rewritten as asked); else why not, with the first lines that
    /// differ, for the test to record.
    public static func compare(_ text: String, withFileAt path: String,
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let old = try? String(contentsOfFile: path, encoding: .utf8)
        if environment["UPDATE_GOLDEN"] == "1" {
            guard environment["CI"] == nil else {
                return "UPDATE_GOLDEN=1 is refused under CI: regenerate golden files on a workstation and review the diff"
            }
            guard old != text else { return nil }
            do {
                try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            } catch { return "could not rewrite \(path): \(error)" }
            print("golden rewritten: \(path)\n" + diff(old ?? "", text))
            return nil
        }
        guard let old else { return "missing golden \(path); run with UPDATE_GOLDEN=1 and review it" }
        return old == text ? nil : "golden \(path) differs:\n" + diff(old, text)
    }

    /// The lines that differ, as `-want` / `+got` pairs with their line numbers (at most `limit` of them).
    public static func diff(_ want: String, _ got: String, limit: Int = 12) -> String {
        let w = want.split(separator: "\n", omittingEmptySubsequences: false)
        let g = got.split(separator: "\n", omittingEmptySubsequences: false)
        var out: [String] = []
        for i in 0..<max(w.count, g.count) where (i < w.count ? w[i] : nil) != (i < g.count ? g[i] : nil) {
            if out.count / 2 >= limit { out.append("…"); break }
            out.append(String(format: "%4d -", i + 1) + (i < w.count ? String(w[i]) : "(end)"))
            out.append(String(format: "%4d +", i + 1) + (i < g.count ? String(g[i]) : "(end)"))
        }
        return out.joined(separator: "\n")
    }
}
