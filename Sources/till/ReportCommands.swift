import ArgumentParser
import Foundation
import TillCore
import TillIO
import TillModel
import TillProtocol

// `till report` and `till export`: a batch's X or Z report and its transactions,
// the same numbers as on screen.

enum ReportOutput: String, ExpressibleByArgument, CaseIterable { case text, csv, json }

/// `--batch current|last|ID|NAME`, read by the one function that reads a typed batch (`BatchKey(text:)`, which says
/// the lookup order). Any text is a batch key: whether the journal knows it is found out when it is looked up.
extension BatchKey: ExpressibleByArgument {
    public init?(argument: String) { self.init(text: argument) }
}

struct BatchSelection: ParsableArguments {
    @Option(help: ArgumentHelp("Which batch: current, last, or a batch id or name (default: current, else the last one).",
                               valueName: "batch"))
    var batch: BatchKey = .current

    /// The batch asked for; `current` falls back to the last batch when none is open. Exits 2 when unknown.
    func resolve(_ journal: Journal) -> BatchRecord? {
        do {
            if let b = try journal.reportBatch(batch) { return b }
        } catch {
            printToStandardError("till: cannot read the journal: \(error)")
            Foundation.exit(3)
        }
        printToStandardError("till: no batch '\(batch)' in the journal (see `till batches`).")
        Foundation.exit(2)
    }
}

extension TillConfig {
    /// How reports write money and times: the configured currency and decimal separator, local time.
    var reportFormat: ReportFormat {
        ReportFormat(currencySymbol: currency ?? "€", decimalSeparator: decimalSeparator ?? ".",
                     utcOffsetMinutes: TimeZone.current.secondsFromGMT() / 60)
    }
}

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Show a batch's report: running (X) while it is open, closing (Z) once it is closed.",
        discussion: "Examples: till report; till report --batch last --format csv; till report --batch 'Saturday morning'")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: BatchSelection
    @Option(help: "text, csv or json.") var format: ReportOutput = .text

    func run() async throws {
        let settings = global.settings()
        let journal = global.journalOnly()
        let batch = selection.resolve(journal)
        let report: Report
        do { report = try journal.report(for: batch) } catch {
            printToStandardError("till: cannot make the report: \(error)"); throw ExitCode(3)
        }
        let f = settings.reportFormat
        switch global.json ? .json : format {
        case .text: outText(report.reportLines(f, store: journal.storeSync()).map(\.text).joined(separator: "\n") + "\n")
        case .csv: Output.shared.verbatim(report.csv(f))
        case .json: outJSON(report.json)
        }
    }
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a batch's transactions (and its report) as CSV or JSON, for the accountant.",
        discussion: "Examples: till export --output shift.csv; till export --batch last --format json")
    @OptionGroup var global: GlobalOptions
    @OptionGroup var selection: BatchSelection
    @Option(help: "csv (transactions) or json (report and transactions).") var format: ReportOutput = .csv
    @Option(help: ArgumentHelp("Write to this file instead of standard output (`-`: standard output).", valueName: "path")) var output: String?

    func run() async throws {
        let settings = global.settings()
        let journal = global.journalOnly()
        let batch = selection.resolve(journal)
        let f = settings.reportFormat
        // Written as the journal is read, one transaction at a time: an export of any size takes constant memory.
        let file: AtomicFileWriter?
        // `-` is standard output, as for every other tool that takes a path to write.
        let output = self.output == "-" ? nil : self.output
        if let output, let own = journal.ownFile(at: output) {
            printToStandardError("till: \(output) is the journal's own file (\(own)): an export never writes onto the journal. "
                                 + "Nothing was written; give another path, like --output shift.csv")
            throw ExitCode(2)
        }
        do { file = try output.map { try AtomicFileWriter(path: $0) } } catch {
            printToStandardError("till: cannot write \(output ?? ""): \(error)"); throw ExitCode(3)
        }
        func emit(_ text: String) throws {
            if let file { try file.write(text) } else { Output.shared.verbatim(text) }
        }
        do {
            switch global.json ? .json : format {
            case .csv, .text:
                try journal.transactionsCSV(batchId: batch?.id, f, emit)
            case .json:
                // {"report": …, "transactions": […]}, each transaction on a line of its own.
                let report = Output.jsonText(try journal.report(for: batch).json, indent: nil)
                try emit("{\"report\": " + report.trimmingCharacters(in: .newlines) + ",\n\"transactions\": ")
                var transactions = StreamedJSONArray()
                try journal.forEachEntry(batchId: batch?.id) { try emit(transactions.element(TransactionExport.json($0, f), indent: nil)) }
                try emit(transactions.end + "}\n")
            }
        } catch let error as FileError {
            printToStandardError("till: cannot write \(output ?? ""): \(error)"); throw ExitCode(3)
        } catch {
            printToStandardError("till: cannot read the journal: \(error)"); throw ExitCode(3)
        }
        if let file, let output {
            // Owner-only (0600), like every file till writes: an export holds the shift's takings.
            do { try file.commit() } catch {
                printToStandardError("till: cannot write \(output): \(error)"); throw ExitCode(3)
            }
            printToStandardError("till: wrote \(output)")
        }
    }
}

struct BatchListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "batches", abstract: "List the batches (shifts) the journal knows.")
    @OptionGroup var global: GlobalOptions
    /// The newest shifts only, by default: a year of a till is thousands of them, and a listing of all of them would
    /// cost more the older the journal is.
    @Option(help: "The newest this many batches, or all.") var limit: EntryLimit = EntryLimit(20)
    func run() async throws {
        let settings = global.settings()
        let journal = global.journalOnly()
        let f = settings.reportFormat
        let all: [BatchRecord]
        do {
            let newest = try journal.newestBatches(limit.count)
            all = newest.batches
            if !global.json, newest.earlier { out("Older batches are not shown (--limit all shows every one).") }
        } catch {
            printToStandardError("till: cannot read the journal: \(error)"); throw ExitCode(3)
        }
        if global.json {
            outJSON(JSONValue.array(all.map { b in
                .object([("id", b.id.map { .string($0) } ?? .null), ("name", b.name.map { .string($0) } ?? .null),
                         ("openedAtMs", .int(Int(b.openedAtMs))), ("closedAtMs", b.closedAtMs.map { .int(Int($0)) } ?? .null),
                         ("closedHow", b.closedHow.map { .string($0.rawValue) } ?? .null)])
            }))
            return
        }
        if all.isEmpty { out("No batches yet: open one with `till batch open --name NAME`."); return }
        for b in all {
            let state = b.isOpen ? "OPEN" : "closed \(f.time(b.closedAtMs)) (\(b.closedHow?.rawValue ?? ""))"
            out("\(b.name ?? "(no name)")  \(b.id ?? "-")  opened \(f.time(b.openedAtMs))  \(state)")
        }
    }
}
