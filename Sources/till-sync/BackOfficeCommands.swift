import ArgumentParser
import Foundation
import TillModel
import TillProtocol
import TillStore

extension OutputFormat: ExpressibleByArgument {}
extension BackOffice.Dimension: ExpressibleByArgument {}

/// Which shop and till a back-office command reads.
struct PlaceOptions: ParsableArguments {
    @Option(help: "Only this shop (its id).")
    var shop: String?
    @Option(help: "Only this till (its id).")
    var till: String?

    var filter: BackOffice.Filter { BackOffice.Filter(shop: shop, till: till) }
}

/// How a back-office command writes its rows.
struct FormatOptions: ParsableArguments {
    @Option(help: "text, csv or json.")
    var format: OutputFormat = .text

    /// A started table of these columns on standard output.
    func writer(columns: [Column]) -> TableWriter {
        let writer = TableWriter(format, columns: columns, sink: .standardOutput())
        writer.start()
        return writer
    }
}

/// Which entries a back-office command reads.
struct FilterOptions: ParsableArguments {
    @OptionGroup var place: PlaceOptions
    @Option(help: "One local day (YYYY-MM-DD, in each shop's time zone).")
    var day: String?
    @Option(help: "From this local day on (YYYY-MM-DD).")
    var from: String?
    @Option(help: "Up to this local day, inclusive (YYYY-MM-DD).")
    var to: String?

    func validate() throws {
        for (name, v) in [("--day", day), ("--from", from), ("--to", to)] {
            if let v, v.range(of: #"^\d{4}-\d{2}-\d{2}$"#, options: .regularExpression) == nil {
                throw ValidationError("\(name) is a day written YYYY-MM-DD (not \(v))")
            }
        }
        if day != nil, from != nil || to != nil { throw ValidationError("say --day, or --from and --to, not both") }
    }

    var filter: BackOffice.Filter {
        var f = place.filter
        (f.fromDay, f.toDay) = (day ?? from, day ?? to)
        return f
    }
}

struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Totals across tills and shops, per shop, till, local day and shift (as the back office).",
        discussion: """
            Each row is counted as `till report` counts a shift: sales (the goods), tips, captured pre-auths and refunds \
            make the net; declined, not charged and unknown are outside it. Rows are written as the store sends them.
            """)
    @OptionGroup var store: StoreOptions
    @OptionGroup var filter: FilterOptions
    @Option(parsing: .upToNextOption, help: "What a row is per: any of shop, till, day, shift (a shift is a till's).")
    var by: [BackOffice.Dimension] = [.shop, .till, .day]
    @OptionGroup var output: FormatOptions

    func run() async throws {
        let dims = BackOffice.normalised(by)
        let writer = output.writer(columns: dims.map(BackOffice.dimensionColumn) + BackOffice.reportColumns)
        do {
            let total = try await BackOffice(address: store.address).report(by: dims, filter: filter.filter) { row in
                writer.row(row.key.map { Cell.text($0) } + BackOffice.reportCells(row.report))
            }
            writer.total(dims.enumerated().map { i, _ in .text(i == 0 ? "total" : "") } + BackOffice.reportCells(total))
            writer.finish()
        } catch { writer.finish(); throw fail(error) }
    }
}

struct FindCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find", abstract: "Finds a payment from any till by transaction id, STAN, amount or day (as the back office).")
    @OptionGroup var store: StoreOptions
    @OptionGroup var filter: FilterOptions
    @Option(help: "The terminal's transaction id.")
    var transactionId: String?
    @Option(help: "The STAN (reference number) on the receipt.")
    var stan: String?
    @Option(help: "The till's client transaction id.")
    var clientTransactionId: String?
    @Option(help: "The amount, e.g. 12.50.")
    var amount: String?
    @Option(help: "At most this many rows.")
    var limit: Int?
    @OptionGroup var output: FormatOptions

    func run() async throws {
        var cents: Int?
        if let amount {
            do { cents = try Money.parse(amount).cents } catch { throw ValidationError("--amount: \(error)") }
        }
        let search = BackOffice.Search(transactionId: transactionId, stan: stan, clientTransactionId: clientTransactionId, amountCents: cents)
        let writer = output.writer(columns: BackOffice.findColumns)
        do {
            let n = try await BackOffice(address: store.address).find(search, filter: filter.filter, limit: limit) { writer.row($0) }
            writer.note(n == 1 ? "1 entry" : "\(n) entries")
            writer.finish()
            if n == 0 { throw ExitCode(3) }
        } catch let e as ExitCode { throw e } catch { writer.finish(); throw fail(error) }
    }
}

struct ReconcileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconcile",
        abstract: "Z reports against pushed entries, tills that stopped pushing, journals to adopt, unresolved entries, parked events.",
        discussion: "Exits 0 when nothing was found, 4 when something needs a look.")
    @OptionGroup var store: StoreOptions
    @OptionGroup var place: PlaceOptions
    @Option(help: "A till not heard from for longer than this many minutes (the store's clock) has stopped pushing.")
    var stoppedAfterMinutes = 15
    @OptionGroup var output: FormatOptions

    func run() async throws {
        let writer = output.writer(columns: BackOffice.reconcileColumns)
        let summary: BackOffice.ReconcileSummary
        do {
            summary = try await BackOffice(address: store.address).reconcile(
                filter: place.filter, stoppedAfter: .seconds(stoppedAfterMinutes * 60)) { writer.row(BackOffice.cells($0)) }
        } catch { writer.finish(); throw fail(error) }
        let f = summary.findings
        writer.note("""
            \(summary.zMatching) of \(summary.zReports) Z reports equal their pushed entries; \(f[.zMismatch] ?? 0) differ. \
            \(summary.tills) tills, \(f[.stopped] ?? 0) stopped pushing (over \(stoppedAfterMinutes) min); \(f[.refusedJournal] ?? 0) journals to adopt; \(f[.behindJournal] ?? 0) journals restored from a backup; \
            \(f[.unresolved] ?? 0) entries unresolved; \(f[.parked] ?? 0) events parked.
            """)
        writer.finish()
        if !f.isEmpty { throw ExitCode(4) }
    }
}
