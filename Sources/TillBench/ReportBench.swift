/// The report benchmarks: see BENCHMARKS.md.
func reportBench() async throws {
    print("  (no report benchmark yet)")
}
