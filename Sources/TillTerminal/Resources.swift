import Foundation
import TillIO
import TillUI

/// Finds and loads themes and keymaps: the user's copies in `$XDG_CONFIG_HOME/till/{themes,keymaps}/`
/// (else `~/.config/till/…`) first, then the shipped ones built into the binary (`ShippedResources`,
/// generated from `themes/*.toml` and `keymaps/*.toml` by `scripts/embed-resources`), so a copied or
/// installed binary finds them wherever it lives. A malformed file is reported (file, line, what is
/// wrong) and the default is used.
public struct Resources: Sendable {
    public enum Kind: String, Sendable { case themes, keymaps }

    /// Where a theme or keymap's text comes from.
    public enum Source: Sendable, Hashable {
        /// A file on disk: a user's copy, or a path given on the command line.
        case file(String)
        /// A shipped one, built into the binary.
        case builtIn(name: String, text: String)

        /// How errors name it: the path, or `built-in themes/NAME.toml`.
        public func label(_ kind: Kind) -> String {
            switch self {
            case .file(let p): return p
            case .builtIn(let n, _): return "built-in \(kind.rawValue)/\(n).toml"
            }
        }
    }

    public var environment: Environment

    public init(environment: Environment = .process) {
        self.environment = environment
    }

    /// The user's folder searched before the built-in ones, if `XDG_CONFIG_HOME` or `HOME` is set.
    public func userDirectory(_ kind: Kind) -> String? {
        if let x = environment["XDG_CONFIG_HOME"], !x.isEmpty { return x + "/till/" + kind.rawValue }
        if let h = environment["HOME"], !h.isEmpty { return h + "/.config/till/" + kind.rawValue }
        return nil
    }

    /// The shipped ones, name → text.
    public static func builtIn(_ kind: Kind) -> [String: String] {
        kind == .themes ? ShippedResources.themes : ShippedResources.keymaps
    }

    /// Where a name (`high-contrast`) or a path (`./my.toml`) is found, if anywhere.
    public func locate(_ name: String, _ kind: Kind) -> Source? {
        if let p = file(name, kind) { return .file(p) }
        if isPath(name) { return nil }
        return Resources.builtIn(kind)[name].map { .builtIn(name: name, text: $0) }
    }

    private func isPath(_ name: String) -> Bool { name.contains("/") || name.hasSuffix(".toml") }

    /// The file a name or path stands for, if there is one: a path as given, a name in the user's folder.
    private func file(_ name: String, _ kind: Kind) -> String? {
        if isPath(name) { return Path.exists(name) ? name : nil }
        guard let d = userDirectory(kind) else { return nil }
        let p = d + "/" + name + ".toml"
        return Path.exists(p) ? p : nil
    }

    /// Names of every theme or keymap found: the user's and the built-in ones.
    public func available(_ kind: Kind) -> [String] {
        var names = Set(Resources.builtIn(kind).keys)
        if let d = userDirectory(kind) {
            // A missing or unreadable folder lists nothing of the user's: the built-in ones remain.
            for f in (try? FileManager.default.contentsOfDirectory(atPath: d)) ?? [] where f.hasSuffix(".toml") {
                names.insert(String(f.dropLast(5)))
            }
        }
        return names.sorted()
    }

    func notFound(_ n: String, _ kind: Kind) -> String {
        let what = kind == .themes ? "Theme" : "Keymap"
        let looked = (userDirectory(kind).map { $0 + ", " } ?? "") + "built-in: " + Resources.builtIn(kind).keys.sorted().joined(separator: ", ")
        return "\(what) '\(n)' not found (looked in \(looked)); using the default."
    }

    func text(_ source: Source) -> String? {
        switch source {
        case .file(let p): return try? String(contentsOfFile: p, encoding: .utf8)
        case .builtIn(_, let t): return t
        }
    }

    /// Loads a theme by name or path; on any problem returns the built-in default and says why.
    public func theme(_ name: String?) -> (Theme, String?) {
        let n = name ?? "default"
        // The usual start: the default, with no copy of the user's. Not even the shipped texts are looked at.
        if n == "default", file(n, .themes) == nil { return (.standard, nil) }
        guard let source = locate(n, .themes) else {
            if n == "default" { return (.standard, nil) }
            return (.standard, notFound(n, .themes))
        }
        // The shipped default is the built-in theme (ThemeKeymapTests compares the two whole): no parse at start-up.
        if case .builtIn(name: "default", _) = source { return (.standard, nil) }
        guard let text = text(source) else { return (.standard, "\(source.label(.themes)): cannot be read; using the default theme.") }
        do { return (try Theme.parse(text, file: source.label(.themes), name: n), nil) } catch {
            return (.standard, error.description + " (using the default theme)")
        }
    }

    /// Loads a keymap by name or path; on any problem returns the built-in default and says why.
    public func keymap(_ name: String?) -> (Keymap, String?) {
        let n = name ?? "default"
        if n == "default", file(n, .keymaps) == nil { return (.standard, nil) }
        guard let source = locate(n, .keymaps) else {
            if n == "default" { return (.standard, nil) }
            return (.standard, notFound(n, .keymaps))
        }
        // The shipped default is the built-in keymap (ThemeKeymapTests compares the two whole): no parse at start-up.
        if case .builtIn(name: "default", _) = source { return (.standard, nil) }
        guard let text = text(source) else { return (.standard, "\(source.label(.keymaps)): cannot be read; using the default keymap.") }
        do { return (try Keymap.parse(text, file: source.label(.keymaps), name: n), nil) } catch {
            return (.standard, error.description + " (using the default keymap)")
        }
    }
}
