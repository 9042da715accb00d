import TillIO

/// A batch's report and its transactions as two CSV files in `exports/` beside the journal (the screen's export).
enum ReportFiles {
    /// The two files' paths, once both are written whole.
    static func write(journal: Journal, batch key: BatchKey, format: ReportFormat) throws -> [String] {
        guard let b = try journal.reportBatch(key) else {
            throw ConfigError(message: "No batch '\(key)' in the journal.")
        }
        let report = try journal.report(for: b)
        let dir = Path.directory(of: journal.path) + "/exports"
        try Path.makeDirectories(dir)
        let stamp = format.time(report.generatedAtMs).replacingOccurrences(of: " ", with: "-").replacingOccurrences(of: ":", with: "")
        let base = dir + "/" + (b.name ?? "batch").map { $0.isLetter || $0.isNumber ? $0 : "-" } + "-" + report.kind.rawValue + "-" + stamp
        try AtomicFile.write(report.csv(format), to: base + "-report.csv")
        // Written as the journal is read, one transaction at a time.
        let transactions = try AtomicFileWriter(path: base + "-transactions.csv")
        try journal.transactionsCSV(batchId: b.id, format) { try transactions.write($0) }
        try transactions.commit()
        return [base + "-report.csv", base + "-transactions.csv"]
    }
}
