/// The ui benchmarks: see BENCHMARKS.md.
func uiBench() async throws {
    print("  (no ui benchmark yet)")
}
