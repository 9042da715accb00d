import ArgumentParser
import Testing
import TillIO
import TillSimulator
@testable import till

/// `UIArguments(quick:)` reads the UI's usual command lines without ArgumentParser (start-up, issue 11). Wherever it
/// reads a line at all, it must read it as ArgumentParser does; everything else it leaves to ArgumentParser.
@Suite struct UIArgumentsTests {
    /// ArgumentParser's reading of a whole command line, when it is the UI's.
    static func parsed(_ argv: [String]) -> UIArguments? {
        guard let command = try? Till.parseAsRoot(argv) else { return nil }
        return (command as? UICommand)?.arguments
    }

    /// Compared as text: a NaN reads as "nan" both ways, and `==` would call it different.
    static func same(_ a: UIArguments?, _ b: UIArguments?) -> Bool { String(reflecting: a) == String(reflecting: b) }

    @Test func theUsualStartsAreReadQuickly() throws {
        for argv in [[], ["ui"], ["--journal", "/tmp/j.sqlite", "--sim-speed", "0"], ["--theme=high-contrast", "--no-color"],
                     ["ui", "--keymap", "keypad", "--transport", "file:/srv/drop", "--timeout", "30"]] {
            let quick = try #require(UIArguments(quick: argv), "not read quickly: \(argv)")
            #expect(Self.same(quick, Self.parsed(argv)), "\(argv)")
        }
        let q = try #require(UIArguments(quick: ["--journal", "/j", "--sim-seed=7", "--sim-abort-style", "page", "--config", "/c"]))
        #expect(q.global.journal == "/j" && q.global.simSeed == 7 && q.global.simAbortStyle == "page" && q.global.config == "/c")
    }

    @Test func leavesToArgumentParserWhatItShouldNotGuess() {
        for argv in [["--help"], ["-h"], ["sale", "--amount", "1"], ["--journal"], ["--journal", "--theme", "x"],
                     ["--journal", "a", "--journal", "b"], ["--sim-speed", "fast"], ["--sim-seed", "-1"], ["--sim-speed", "-1"],
                     ["--no-color=yes"], ["--jornal", "x"], ["-journal", "x"], ["--", "x"], ["x"], ["ui", "ui"],
                     ["--sim-seed", "18446744073709551616"], ["--version"], ["--generate-completion-script", "bash"]] {
            #expect(UIArguments(quick: argv) == nil, "read quickly: \(argv)")
        }
    }

    /// `till --version` prints the release and succeeds (main prints a clean exit's message and exits 0).
    @Test func versionIsTheRelease() {
        do {
            _ = try Till.parseAsRoot(["--version"])
            Issue.record("--version was parsed as a command")
        } catch {
            #expect(Till.fullMessage(for: error) == TillVersion.string && Till.exitCode(for: error) == .success)
        }
    }

    /// Every option `till ui --help` lists is read quickly, with a value, as ArgumentParser reads it: an option
    /// added to the UI (or to the global options) and not to the quick reading fails here.
    @Test func everyOptionTheUIListsIsReadAlike() throws {
        let help = UICommand.helpMessage(columns: 200)
        let names = Set(help.split(whereSeparator: { " ,\n[]<>()|".contains($0) }).map(String.init).filter { $0.hasPrefix("--") })
        #expect(names.count >= 12, "\(names)")
        for name in names.sorted() where name != "--help" {
            let flagged = Self.parsed([name])
            let argv = flagged != nil ? [name] : [name, "7"]
            let quick = try #require(UIArguments(quick: argv), "not read quickly: \(argv)")
            #expect(Self.same(quick, Self.parsed(argv)), "\(argv)")
            #expect(!Self.same(quick, UIArguments()), "\(argv) changed nothing")
        }
    }

    /// Random command lines of the UI's options, their values and near misses: wherever the quick reading gives an
    /// answer, ArgumentParser gives the same.
    @Test func randomCommandLinesAreReadAlike() {
        let names = ["--journal", "--theme", "--keymap", "--transport", "--timeout", "--config", "--sim-speed", "--sim-seed",
                     "--sim-state", "--sim-abort-style", "--json", "--no-color", "--help", "--jour", "-j", "--", "ui", "sale"]
        let values = ["x", "/tmp/j.sqlite", "", "0", "1.5", "-1", "-x", "nan", "inf", "1e3", "0x10", "18446744073709551615",
                      "18446744073709551616", "page", "TERMINAL", "file:/d", "a=b", "ui", "--json", " 1", "é"]
        var rng = SplitMix64(state: 11)   // the project's seeded generator (TillSimulator)
        var quickly = 0
        for _ in 0..<1500 {
            var argv: [String] = []
            for _ in 0..<rng.int(6) {
                let name = names[rng.int(names.count)]
                switch rng.next() % 4 {
                case 0: argv.append(name)
                case 1: argv.append(name + "=" + values[rng.int(values.count)])
                default: argv += [name, values[rng.int(values.count)]]
                }
            }
            guard let quick = UIArguments(quick: argv) else { continue }
            quickly += 1
            #expect(Self.same(quick, Self.parsed(argv)), "\(argv)")
        }
        #expect(quickly > 150, "only \(quickly) lines read quickly: the test no longer tries much")
    }
}
