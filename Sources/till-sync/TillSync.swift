import ArgumentParser
import Foundation
import TillCore
import TillIO
import TillStore

/// How to reach the store: the same options for every command.
struct StoreOptions: ParsableArguments {
    @Option(help: "The store's unix socket folder (starts with /), or its host (over TLS unless loopback).")
    var host: String = "/var/run/postgresql"
    @Option(help: "The store's port.")
    var port: Int = 5432
    @Option(help: "The store's database.")
    var database: String = "till"
    @Option(help: "The role to log in as (a till's own role for push; a back-office role for report, find, reconcile; an administrator for the set-up commands).")
    var user: String = ProcessInfo.processInfo.environment["USER"] ?? "till"
    @Option(help: "A file holding the password, readable by its owner only (0600).")
    var passwordFile: String?
    @Option(help: "The certificate authorities (PEM) that may sign the store's certificate (TLS is used, fully verified, for any host but a unix socket or loopback); default: the system's.")
    var caFile: String?
    @Flag(help: "TLS, fully verified, on loopback too (a tunnel's end on this machine).")
    var tlsOnLoopback = false

    @Option(help: "Seconds to wait for the store to answer a login or a statement before giving the connection up.")
    var timeout = 60

    var address: StoreAddress {
        var a = StoreAddress(host: host, port: port, database: database, user: user, passwordFile: passwordFile, caFile: caFile, tlsOnLoopback: tlsOnLoopback)
        a.timeout = .seconds(max(1, timeout))
        return a
    }
}

/// One line on standard error, written at once (a service's output is a pipe to journald, read line by line).
func say(_ text: String) {
    FileHandle.standardError.write(Data("till-sync: \(text)\n".utf8))
}

/// One line on standard output, written at once (the benches' tables are read as they come).
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// What a push's line adds when it pruned the outbox.
func prunedNote(_ r: PushResult) -> String { r.pruned > 0 ? "; pruned \(r.pruned) old events from the outbox" : "" }

/// Exits 1 with the store's reason, worded for a person.
func fail(_ error: any Error) -> ExitCode {
    say("\(error)")
    return ExitCode(1)
}

@main
struct TillSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "till-sync",
        abstract: "Pushes a till's journal to the chain's central store (PostgreSQL), and reads the store for the back office.",
        version: TillVersion.string,
        subcommands: [Push.self, InitStore.self, AddShop.self, AddTill.self, AdoptJournal.self,
                      ReportCommand.self, FindCommand.self, ReconcileCommand.self, WatchCommand.self, BenchCommand.self, FleetCommand.self])
}

struct Push: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Pushes the journal's outbox to the store: --once, or --follow as a service.")
    @OptionGroup var store: StoreOptions
    @Option(help: "The till's journal (the push only reads it; old outbox events the store holds are then deleted, see --keep-days).")
    var journal: String = Journal.defaultPath()
    @Flag(help: "Push what there is, then exit.")
    var once = false
    @Flag(help: "Keep pushing, backing off while the store cannot be reached.")
    var follow = false
    @Option(help: "Events per round trip (one transaction of the store each).")
    var batchSize = Sync.defaultBatchSize
    @Option(help: "After a push, the outbox keeps the events of the last this many days (the till's clock) and the newest --keep-events, whichever keeps more; older ones the store holds are deleted.")
    var keepDays = OutboxRetention.standard.keepDays
    @Option(help: "The newest events the outbox keeps after a push, whatever their age (see --keep-days).")
    var keepEvents = OutboxRetention.standard.keepEvents
    @Flag(inversion: .prefixedNo, help: "Delete old outbox events the store holds after a push (--no-prune keeps every event).")
    var prune = true

    func validate() throws {
        guard once != follow else { throw ValidationError("say --once or --follow") }
        guard keepDays >= 0, keepEvents >= 0 else { throw ValidationError("--keep-days and --keep-events are 0 or more") }
    }

    func run() async throws {
        let retention = prune ? OutboxRetention(keepDays: keepDays, keepEvents: keepEvents) : nil
        let sync = Sync(journalPath: journal, address: store.address, batchSize: batchSize, retention: retention)
        if once {
            do {
                let r = try await sync.pushOnce()
                print("journal \(r.journalId): pushed \(r.pushed) events in \(r.batches) batches; the store holds up to event \(r.storeLastSeq); \(r.toSend) to send" + prunedNote(r))
                // The push went through: a pruning that failed is said, not an exit status.
                if let p = r.pruneProblem { say(p) }
            } catch { throw fail(error) }
            return
        }
        await sync.follow { result in
            switch result {
            // Written at once, not buffered: a service's output is a pipe (journald), read line by line.
            case .success(let r):
                printLine("sent up to event \(r.storeLastSeq) of journal \(r.journalId); \(r.toSend) to send\(prunedNote(r))")
                if let p = r.pruneProblem { say(p + " (trying again after the next push)") }
            case .failure(let e): say("\(e)" + (e.transient ? " (trying again)" : ""))
            }
        }
    }
}

struct InitStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Creates or migrates the store's schema (as its administrator).")
    @OptionGroup var store: StoreOptions
    func run() async throws {
        do {
            let applied = try await StoreAdmin(address: store.address).initStore()
            print(applied.isEmpty ? "the store's schema is up to date" : "applied store schema versions \(applied.map(String.init).joined(separator: ", "))")
        } catch { throw fail(error) }
    }
}

struct AddShop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Adds (or renames) a shop.")
    @OptionGroup var store: StoreOptions
    @Option var id: String
    @Option var name: String
    @Option(help: "The shop's time zone (for its local days).")
    var timeZone = "UTC"
    func run() async throws {
        do { try await StoreAdmin(address: store.address).addShop(id: id, name: name, timeZone: timeZone) } catch { throw fail(error) }
    }
}

struct AddTill: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Adds a till and its own login role, which may only push its own rows.")
    @OptionGroup var store: StoreOptions
    @Option var id: String
    @Option var shop: String
    @Option(help: "The till's login role.")
    var role: String
    @Option(help: "The till role's password, in a 0600 file.")
    var tillPasswordFile: String
    func run() async throws {
        do {
            try await StoreAdmin(address: store.address).addTill(id: id, shop: shop, role: role, passwordFile: tillPasswordFile)
        } catch { throw fail(error) }
    }
}

struct AdoptJournal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Makes a till's refused journal its active one (the old one is retired).")
    @OptionGroup var store: StoreOptions
    @Option var till: String
    @Option var journal: String
    func run() async throws {
        do { try await StoreAdmin(address: store.address).adoptJournal(till: till, journal: journal) } catch { throw fail(error) }
    }
}
