/// The simulator benchmarks: see BENCHMARKS.md.
func simulatorBench() async throws {
    print("  (no simulator benchmark yet)")
}
