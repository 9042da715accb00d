import Foundation
import TillIO
import TillModel
import TillProtocol
import TOMLKit

/// A configuration problem, in words that name the file, line and key.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// till's settings: `$XDG_CONFIG_HOME/till/config.toml` (else `~/.config/till/config.toml`), flags override them.
/// Every key is optional; nil means "not set here" (the defaults apply).
///
/// ```toml
/// merchant_key = "SG23323424EXS3"
/// app_id = "com.example.till"
/// callback = "interapp-callback"
/// currency = "EUR"
/// decimal_separator = ","
/// transport = "file:/srv/till-drop"    # simulator | file:DIR | pipe:COMMAND
/// timeout = 90                         # seconds
/// cashier = "Ana"
/// till_name = "Till 2"
/// theme = "default"
/// keymap = "default"
/// journal = "/var/lib/till/journal.sqlite"
/// sim_speed = 1
/// sim_seed = 1
/// sim_state = "/var/lib/till/simulator-state.json"
/// sim_abort_style = "terminal"         # terminal | page | sale-only (the built-in simulator's abort answer)
/// tip = "on-top"                       # on-top | included: how the terminal reads tipAmount
/// bell = true                          # the cashier UI rings the terminal's bell on each verdict
/// confirm_above = 100.00               # a sale or pre-auth above this total asks first (default: never)
/// usual_payment = "sale"               # sale | pre-auth: the cashier screen the till starts on and returns to
/// ```
public struct TillConfig: Sendable, Hashable {
    public var merchantKey: String?
    public var appId: String?
    public var callback: String?
    public var currency: String?
    public var decimalSeparator: String?
    public var transport: TransportSpec?
    public var timeoutSeconds: Double?
    public var cashier: String?
    public var tillName: String?
    public var theme: String?
    public var keymap: String?
    public var journalPath: String?
    public var simSpeed: Double?
    public var simSeed: UInt64?
    public var simStatePath: String?
    /// How the built-in simulator answers an abort (`sim_abort_style`).
    public var simAbortStyle: AbortStyle?
    /// How the terminal reads `tipAmount` (`tip`): on top of the amount (default) or included in it.
    public var tip: TipStyle?
    /// How the amount fields read digits: `decimal` (12.50 typed as it reads) or `cents` (1250 is 12.50, as many card
    /// terminals take it).
    public var amountEntry: AmountEntry?
    /// Whether the cashier UI rings the bell on each verdict (`bell`; default on).
    public var bell: Bool?
    /// A sale or pre-auth whose total (amount and tip) is above this asks for a confirmation showing the
    /// amount before it is sent (`confirm_above`; default: none asks). Refunds and captures always ask.
    public var confirmAbove: Money?
    /// The shop's usual payment (`usual_payment`): a sale (default), or a pre-auth (hotels, rentals). The cashier
    /// screen starts on it and goes back to it after a pre-auth, capture or refund's verdict.
    public var preAuthIsUsual: Bool?
    /// The file it was read from, if any.
    public var sourcePath: String?
    /// Things the cashier or the shop owner should fix, found while loading (e.g. a merchant key others can read).
    public var warnings: [String] = []

    public init() {}

    public static let defaultMerchantKey = "DEMO-MERCHANT-KEY"
    public static let defaultAppId = "com.example.till"
    public static let defaultCallback = "interapp-callback"
    public static let defaultTimeoutSeconds = 90.0
    /// The slowest the built-in simulator runs: its delays times this stay far inside the clock's range (a factor of
    /// 1e16 overflowed the delay arithmetic and killed till mid-sale). The simulator's own `SimulatorConfig.maximumSpeed`,
    /// spelt here because the config is read without the simulator (a test holds the two equal).
    public static let maximumSimSpeed = 1000.0

    /// The keys a config file may hold.
    public static let keys = ["merchant_key", "app_id", "callback", "currency", "decimal_separator", "transport", "timeout",
                              "cashier", "till_name", "theme", "keymap", "journal", "sim_speed", "sim_seed", "sim_state",
                              "sim_abort_style", "tip", "bell", "confirm_above", "amount_entry", "usual_payment"]

    /// `$XDG_CONFIG_HOME/till/config.toml`, else `~/.config/till/config.toml`.
    public static func defaultPath(environment: Environment = .process) -> String {
        if let x = environment["XDG_CONFIG_HOME"], x.hasPrefix("/") { return x + "/till/config.toml" }
        return (environment["HOME"] ?? "/tmp") + "/.config/till/config.toml"
    }

    /// Reads the config file. An explicit path must exist; the default path may be absent (empty config).
    public static func load(path: String? = nil, environment: Environment = .process) throws(ConfigError) -> TillConfig {
        let p = path ?? defaultPath(environment: environment)
        guard Path.exists(p) else {
            if path != nil { throw ConfigError(message: "\(p): no such config file.") }
            return TillConfig()
        }
        let (text, st) = try readOwnFile(p)
        var c = try parse(text, file: p)
        c.sourcePath = p
        if c.merchantKey != nil, (st.st_mode & 0o077) != 0 {
            c.warnings.append("The config file \(p) holds the merchant key and others on this machine can read it: run chmod 600 \(p)")
        }
        return c
    }

    /// The largest config file read (a config is a few lines; this bounds what a wrong path can make till read).
    static let maximumBytes = 1 << 20

    /// Reads the config file, refusing one that is not the user's own: the config names the command a `pipe:`
    /// transport runs and the folder answers come from, so whoever can write it can run commands as the cashier and
    /// plant approvals, as with a shared drop folder. Refused: not a regular file (a FIFO would block every command:
    /// it is opened without blocking and checked with `fstat` before a byte is read), writable by group or others,
    /// or owned by another user than this one or root. A symbolic link is followed: the file it leads to is checked.
    static func readOwnFile(_ p: String) throws(ConfigError) -> (String, stat) {
        let shown = SafeText.terminal(p)
        let fd = open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw ConfigError(message: "\(shown): cannot be read (\(String(cString: strerror(errno)))).") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ConfigError(message: "\(shown): cannot be read (\(String(cString: strerror(errno)))).") }
        // `--config /dev/null`: no config, said plainly (it reads as empty and never blocks).
        var null = stat()
        if (st.st_mode & S_IFMT) == S_IFCHR, stat("/dev/null", &null) == 0, (null.st_mode & S_IFMT) == S_IFCHR, null.st_rdev == st.st_rdev {
            return ("", st)
        }
        guard FileKind.isRegular(st.st_mode) else {
            throw ConfigError(message: "\(shown) is \(FileKind.describe(st.st_mode)), not a regular file: till reads its config only from a regular file. "
                              + "Give the path of a config file, or remove this one.")
        }
        if st.st_uid != geteuid() && st.st_uid != 0 {
            throw ConfigError(message: "The config file \(shown) belongs to another user (uid \(st.st_uid)): it can name a command till runs "
                              + "and the folder answers come from, so it must be yours. Make it yours: chown \(geteuid()) \(p) && chmod 600 \(p)")
        }
        if (st.st_mode & 0o022) != 0 {
            let who = (st.st_mode & 0o002) != 0 ? "every user on this machine" : "its group"
            throw ConfigError(message: "The config file \(shown) is writable by \(who) (mode \(String(st.st_mode & 0o777, radix: 8))): "
                              + "whoever can write it can make till run a command or read answers from a folder of theirs. "
                              + "Make it yours alone: chmod 600 \(p)")
        }
        guard st.st_size <= Int64(maximumBytes) else { throw ConfigError(message: "\(shown) is larger than 1 MiB: not a till config.") }
        var bytes = [UInt8]()
        var buf = [UInt8](repeating: 0, count: 65536)
        while bytes.count <= maximumBytes {
            let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ConfigError(message: "\(shown): cannot be read (\(String(cString: strerror(errno)))).")
            }
            if n == 0 { break }
            bytes += buf[0..<n]
        }
        return (String(decoding: bytes, as: UTF8.self), st)
    }

    /// Parses config text. Errors name the file, the line and the key.
    public static func parse(_ text: String, file: String = "config.toml") throws(ConfigError) -> TillConfig {
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let e as TOMLParseError {
            throw ConfigError(message: "\(file):\(e.source.begin.line): \(e.description)")
        } catch {
            throw ConfigError(message: "\(file): \(error)")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        func line(of key: String) -> Int {
            for (i, l) in lines.enumerated() {
                let t = l.trimmingWhitespace()
                for form in [key, "\"\(key)\"", "'\(key)'"] where t.hasPrefix(form) {
                    let rest = t.dropFirst(form.count).trimmingWhitespace()
                    if rest.hasPrefix("=") { return i + 1 }
                }
            }
            return 0
        }
        /// The text after `key =` on its line, up to a comment.
        func rawValue(of key: String) -> String {
            let n = line(of: key)
            guard n > 0, let eq = lines[n - 1].firstIndex(of: "=") else { return "" }
            let rest = lines[n - 1][lines[n - 1].index(after: eq)...]
            return String(rest.prefix { $0 != "#" }).trimmingWhitespace()
        }
        func fail(_ key: String, _ why: String) -> ConfigError {
            let n = line(of: key)
            return ConfigError(message: "\(file):\(n > 0 ? "\(n):" : "") key '\(key)': \(why)")
        }
        var c = TillConfig()
        for key in table.keys {
            guard keys.contains(key) else {
                throw fail(key, "unknown key (known: \(keys.joined(separator: ", "))).")
            }
            let v = table[key]!
            func string() throws(ConfigError) -> String {
                guard let s = v.string else { throw fail(key, "must be a string in quotes, like \(key) = \"…\".") }
                return s
            }
            func number() throws(ConfigError) -> Double {
                if let i = v.int { return Double(i) }
                if let d = v.double { return d }
                throw fail(key, "must be a number, like \(key) = 90.")
            }
            // TOML may spell control characters as escapes; the TOML reader cuts a string at a NUL, silently.
            let n = line(of: key)
            if n > 0 {
                let raw = String(lines[n - 1])
                if raw.contains("\\u0000") || raw.contains("\\U00000000") {
                    throw fail(key, "holds a NUL character (\\u0000), which no value may hold.")
                }
            }
            if let s = v.string, s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw fail(key, "holds a control character, which no value may hold.")
            }
            switch key {
            case "merchant_key":
                let s = try string()
                if s.trimmingWhitespace().isEmpty { throw fail(key, "is empty.") }
                c.merchantKey = s
            case "app_id": c.appId = try string()
            case "callback": c.callback = try string()
            case "currency": c.currency = try string()
            case "decimal_separator":
                let s = try string()
                guard s == "." || s == "," else { throw fail(key, "must be \".\" or \",\".") }
                c.decimalSeparator = s
            case "transport":
                do { c.transport = try TransportSpec(parsing: try string()) } catch { throw fail(key, error.message) }
            case "timeout":
                let n = try number()
                guard n >= TillConfig.minimumTimeoutSeconds, n <= 3600 else {
                    throw fail(key, "must be from \(TillConfig.minimumTimeoutSeconds) to 3600 seconds (got \(n)).")
                }
                c.timeoutSeconds = n
            case "cashier": c.cashier = try string()
            case "till_name": c.tillName = try string()
            case "theme": c.theme = try string()
            case "keymap": c.keymap = try string()
            case "journal":
                let s = try string()
                if s.trimmingWhitespace().isEmpty {
                    throw fail(key, "is empty: give the journal's file path, like journal = \"/var/lib/till/journal.sqlite\" (or leave the key out for the default).")
                }
                c.journalPath = s
            case "sim_speed":
                let n = try number()
                guard n >= 0, n <= TillConfig.maximumSimSpeed else {
                    throw fail(key, "must be from 0 (no delays) to \(Int(TillConfig.maximumSimSpeed)) (delays 1000 times real time).")
                }
                c.simSpeed = n
            case "sim_seed":
                guard let i = v.int, i >= 0 else { throw fail(key, "must be a whole number, 0 or more.") }
                c.simSeed = UInt64(i)
            case "sim_state": c.simStatePath = try string()
            case "sim_abort_style":
                let s = try string()
                guard let style = AbortStyle(rawValue: s) else { throw fail(key, "must be one of \(AbortStyle.names) (got \"\(s)\").") }
                c.simAbortStyle = style
            case "tip":
                let s = try string()
                guard let style = TipStyle(rawValue: s) else {
                    throw fail(key, "must be \"on-top\" (the tip is added to the amount) or \"included\" (the amount holds the tip) (got \"\(s)\").")
                }
                c.tip = style
            case "amount_entry":
                let s = try string()
                guard let e = AmountEntry(rawValue: s) else {
                    throw fail(key, "must be \"decimal\" (type 12.50) or \"cents\" (type 1250 for 12.50) (got \"\(s)\").")
                }
                c.amountEntry = e
            case "usual_payment":
                let s = try string()
                switch String(s.lowercased().map { $0 == "_" ? "-" : $0 }) {
                case "sale": c.preAuthIsUsual = false
                case "pre-auth", "preauth": c.preAuthIsUsual = true
                default: throw fail(key, "must be \"sale\" or \"pre-auth\" (got \"\(s)\").")
                }
            case "bell":
                guard let b = v.bool else { throw fail(key, "must be true or false (no quotes), like bell = false.") }
                c.bell = b
            case "confirm_above":
                // An amount in the currency, read as a cashier types it: from the file's own text for a TOML
                // number (a float would turn 100.10 into 100.0999…), else the quoted text.
                let text: String
                if let q = v.string { text = q }
                else if v.int != nil || v.double != nil { text = rawValue(of: key) }
                else { throw fail(key, "must be an amount in the currency, like confirm_above = 100.00, or \"off\".") }
                if text.trimmingWhitespace().lowercased() == "off" { c.confirmAbove = Money.maximum; break }   // nothing is above it
                do { c.confirmAbove = try Money.parse(text) } catch {
                    throw fail(key, "must be an amount in the currency, like confirm_above = 100.00, or \"off\": \(error.description)")
                }
            default: break
            }
        }
        return c
    }

    /// These settings, with every value `other` sets taking precedence.
    public func overridden(by other: TillConfig) -> TillConfig {
        var c = self
        if let v = other.merchantKey { c.merchantKey = v }
        if let v = other.appId { c.appId = v }
        if let v = other.callback { c.callback = v }
        if let v = other.currency { c.currency = v }
        if let v = other.decimalSeparator { c.decimalSeparator = v }
        if let v = other.transport { c.transport = v }
        if let v = other.timeoutSeconds { c.timeoutSeconds = v }
        if let v = other.cashier { c.cashier = v }
        if let v = other.tillName { c.tillName = v }
        if let v = other.theme { c.theme = v }
        if let v = other.keymap { c.keymap = v }
        if let v = other.journalPath { c.journalPath = v }
        if let v = other.simSpeed { c.simSpeed = v }
        if let v = other.simSeed { c.simSeed = v }
        if let v = other.simStatePath { c.simStatePath = v }
        if let v = other.simAbortStyle { c.simAbortStyle = v }
        if let v = other.tip { c.tip = v }
        if let v = other.amountEntry { c.amountEntry = v }
        if let v = other.bell { c.bell = v }
        if let v = other.confirmAbove { c.confirmAbove = v }
        if let v = other.preAuthIsUsual { c.preAuthIsUsual = v }
        return c
    }

    /// The caller fields with defaults filled in (merchant key: config, else `$TILL_MERCHANT_KEY`, else a demo key).
    public func caller(environment: Environment = .process) -> Caller {
        let envKey = environment.nonEmpty("TILL_MERCHANT_KEY")
        return Caller(callback: callback ?? TillConfig.defaultCallback,
                      merchantKey: merchantKey ?? envKey ?? TillConfig.defaultMerchantKey,
                      appId: appId ?? TillConfig.defaultAppId)
    }

    public var resolvedTip: TipStyle { tip ?? .onTop }

    /// The shortest wait for an answer till accepts: anything shorter would call every outcome unknown.
    public static let minimumTimeoutSeconds = 0.1

    public var resolvedJournalPath: String { journalPath ?? Journal.defaultPath() }
    public var resolvedTransport: TransportSpec { transport ?? .simulator }
    public var resolvedTimeoutMs: Int64 { Int64(((timeoutSeconds ?? TillConfig.defaultTimeoutSeconds) * 1000).rounded()) }
    /// `<journal folder>/simulator-state.json` unless set.
    public var resolvedSimStatePath: String { simStatePath ?? (Path.directory(of: resolvedJournalPath) + "/simulator-state.json") }
}
