/// The protocol benchmarks: see BENCHMARKS.md.
func protocolBench() async throws {
    print("  (no protocol benchmark yet)")
}
