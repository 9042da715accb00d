/// The core benchmarks: see BENCHMARKS.md.
func coreBench() async throws {
    print("  (no core benchmark yet)")
}
