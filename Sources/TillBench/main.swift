import Foundation

// Benchmarks, release build only: `swift run -c release TillBench [user|protocol|simulator|core|ui|report|all]`.
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

if which == "frames" {
    framesOnly(Int(args.dropFirst().first ?? "") ?? 100)
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
