import ArgumentParser
import Foundation
import TillStore

struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "Plays a chain's tills against one store (each its own role, journal and push --follow) and measures the store: CPU per idle till, lag from a sale to its row, getting in past max_connections.",
        discussion: """
            Runs as the store's administrator, in a scratch database it drops at the end, on the machine of the server \
            (its CPU is read from /proc). --till-port puts the tills behind a pooler (PgBouncer) in front of the same \
            server; --pooler-pid measures the pooler's CPU too. BENCHMARKS.md ("1,000 tills") has the figures and commands.
            """)
    @OptionGroup var store: StoreOptions
    @Option(help: "Tills to play.")
    var tills = 300
    @Option(help: "The host the tills log in at (default: the server's loopback address).")
    var tillHost: String?
    @Option(help: "The port the tills log in at: a pooler's (default: the server's).")
    var tillPort: Int?
    @Option(help: "The pooler's process id, to measure its CPU.")
    var poolerPid: Int32?
    @Option(help: "Tills that sell during the lag measure.")
    var sellers = 20
    @Option(help: "Sales each seller makes.")
    var salesPerSeller = 25
    @Option(help: "Milliseconds between a seller's sales.")
    var saleSpacingMs = 200
    @Option(help: "Seconds of the server's CPU with no till.")
    var baselineSeconds = 20
    @Option(help: "Seconds of the server's CPU with every till idle (0: not measured).")
    var idleSeconds = 60
    @Option(help: "Seconds the tills may take to all get in at the start.")
    var rampTimeout = 300
    @Flag(help: "Tills keep their connections while idle (push --follow closes them two minutes after the last work): the other side of the trade, a backend per till.")
    var keepConnections = false

    func run() async throws {
        var bench = FleetBench(admin: store.address, tills: tills, say: printLine)
        bench.tillHost = tillHost; bench.tillPort = tillPort; bench.poolerPid = poolerPid
        bench.sellers = sellers; bench.salesPerSeller = salesPerSeller; bench.saleSpacingMs = saleSpacingMs
        if keepConnections { bench.schedule.idleCloseMs = 86_400_000 }
        bench.baselineSeconds = baselineSeconds; bench.idleSeconds = idleSeconds; bench.rampTimeoutSeconds = rampTimeout
        do { _ = try await bench.run() } catch { throw fail(error) }
    }
}
