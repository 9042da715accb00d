// Benchmarks, release build only: `swift run -c release TillBench [protocol|simulator|core|ui|report|all]`.
// Figures are recorded in BENCHMARKS.md. Never run as unit tests.
let args = CommandLine.arguments.dropFirst()
let which = args.first ?? "all"
let benches: [(String, () async throws -> Void)] = [
    ("protocol", protocolBench),
    ("simulator", simulatorBench),
    ("core", coreBench),
    ("ui", uiBench),
    ("report", reportBench),
]
for (name, run) in benches where which == "all" || which == name {
    print("== \(name)")
    try await run()
}
