import ArgumentParser
import Foundation
import TillStore

struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measures the store: push throughput, lag from a sale to the store, a year of a chain's reports (as an administrator, in a scratch database).",
        discussion: "scripts/bench-store runs it against a private server, with a delay proxy for --delayed-port.")
    @OptionGroup var store: StoreOptions
    @Option(help: "A loopback port that reaches the same server through a delay (measured there too).")
    var delayedPort: Int?
    @Option(help: "The delay the proxy on --delayed-port adds each way, in ms (for the table's label).")
    var delayMs = 20
    @Option(help: "Sales for the lag measure.")
    var lagSales = 1_000
    @Option(help: "Tills in the year of a chain.")
    var yearTills = 30
    @Option(help: "Entries per till in the year.")
    var yearEntriesPerTill = 100_000
    @Option(help: "Events of each first push measured (real and synthetic payloads).")
    var pushEvents = 120_000
    @Option(help: "Which measures, comma-separated: throughput, lag, year (default: all).")
    var only = "throughput,lag,year"

    func run() async throws {
        var bench = StoreBench(admin: store.address, delayedPort: delayedPort, delayMs: delayMs, lagSales: lagSales,
                               yearTills: yearTills, yearEntriesPerTill: yearEntriesPerTill, say: printLine)
        bench.realEvents = max(3, pushEvents)
        bench.measures = Set(only.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
        do { try await bench.run() } catch { throw fail(error) }
    }
}
