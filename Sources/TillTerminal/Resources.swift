import Foundation
import TillUI

/// Finds and loads themes and keymaps: the user's copies in `$XDG_CONFIG_HOME/till/{themes,keymaps}/` first,
/// then the shipped ones (a `themes/` or `keymaps/` folder found searching upward from the executable),
/// then `/usr/share/till/`. A malformed file is reported (file, line, what is wrong) and the default is used.
public struct Resources: Sendable {
    public enum Kind: String, Sendable { case themes, keymaps }
    public var environment: [String: String]
    public var executablePath: String

    public init(environment: [String: String] = ProcessInfo.processInfo.environment, executablePath: String? = nil) {
        self.environment = environment
        self.executablePath = executablePath ?? Resources.currentExecutable()
    }

    static func currentExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The folders searched, best first.
    public func searchDirectories(_ kind: Kind) -> [String] {
        var dirs: [String] = []
        if let x = environment["XDG_CONFIG_HOME"], !x.isEmpty { dirs.append(x + "/till/" + kind.rawValue) }
        else if let h = environment["HOME"], !h.isEmpty { dirs.append(h + "/.config/till/" + kind.rawValue) }
        var dir = (executablePath as NSString).deletingLastPathComponent
        while !dir.isEmpty {
            let candidate = dir + "/" + kind.rawValue
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDir), isDir.boolValue {
                dirs.append(candidate)
                break
            }
            if dir == "/" { break }
            dir = (dir as NSString).deletingLastPathComponent
        }
        dirs.append("/usr/share/till/" + kind.rawValue)
        return dirs
    }

    /// The file for a name (`high-contrast`) or a path (`./my.toml`), if any.
    public func locate(_ name: String, _ kind: Kind) -> String? {
        if name.contains("/") || name.hasSuffix(".toml") {
            return FileManager.default.fileExists(atPath: name) ? name : nil
        }
        for d in searchDirectories(kind) {
            let p = d + "/" + name + ".toml"
            if FileManager.default.fileExists(atPath: p) { return p }
        }
        return nil
    }

    /// Names of every theme or keymap found.
    public func available(_ kind: Kind) -> [String] {
        var names = Set<String>()
        for d in searchDirectories(kind) {
            for f in (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? [] where f.hasSuffix(".toml") {
                names.insert(String(f.dropLast(5)))
            }
        }
        return names.sorted()
    }

    /// Loads a theme by name or path; on any problem returns the built-in default and says why.
    public func theme(_ name: String?) -> (Theme, String?) {
        let n = name ?? "default"
        guard let path = locate(n, .themes) else {
            if name == nil || n == "default" { return (.standard, nil) }
            return (.standard, "Theme '\(n)' not found (looked in \(searchDirectories(.themes).joined(separator: ", "))); using the default.")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return (.standard, "\(path): cannot be read; using the default theme.") }
        do { return (try Theme.parse(text, file: path, name: n), nil) } catch {
            return (.standard, error.description + " (using the default theme)")
        }
    }

    /// Loads a keymap by name or path; on any problem returns the built-in default and says why.
    public func keymap(_ name: String?) -> (Keymap, String?) {
        let n = name ?? "default"
        guard let path = locate(n, .keymaps) else {
            if name == nil || n == "default" { return (.standard, nil) }
            return (.standard, "Keymap '\(n)' not found (looked in \(searchDirectories(.keymaps).joined(separator: ", "))); using the default.")
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return (.standard, "\(path): cannot be read; using the default keymap.") }
        do { return (try Keymap.parse(text, file: path, name: n), nil) } catch {
            return (.standard, error.description + " (using the default keymap)")
        }
    }
}
