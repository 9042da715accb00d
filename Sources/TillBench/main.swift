import Foundation

// Benchmarks, release build only (TILL_BIN=.build-release/release/till measures the binary ./scripts/run deploys): `swift run -c release TillBench [user|startup|protocol|simulator|core|ui|report|all|corpus N|frames N]`.
// `all` runs what a user meets (each side by side with its peer), then the inner loops, and rewrites the
// summary at the top of BENCHMARKS.md. Never run as unit tests.
let args = CommandLine.arguments.dropFirst()
let which = args.first ?? "all"
let benches: [(String, () async throws -> Void)] = [
    ("protocol", protocolBench),
    ("simulator", simulatorBench),
    ("core", coreBench),
    ("ui", uiBench),
    ("report", reportBench),
]

if which == "corpus" {
    // `TillBench corpus N`: the decode benchmarks' N callback URLs (seed 0x5EED), one a line, for profiling.
    let n = Int(args.dropFirst().first ?? "") ?? 1000
    print(CallbackCorpus.make(count: n, seed: 0x5EED).map(\.url).joined(separator: "\n"))
} else if which == "frames" {
    framesOnly(Int(args.dropFirst().first ?? "") ?? 100)
} else if which == "startup" {
    print("== startup")
    startupOnlyBench()
} else if which == "user" {
    print("== user")
    _ = try await userBench()
} else if which == "all" {
    try await benchAll()
} else {
    for (name, run) in benches where which == name {
        print("== \(name)")
        try await run()
    }
}
