// swift-tools-version:6.0
import PackageDescription

// Dependency direction is one way:
//   TillProtocol  <-  TillModel  <-  TillUI
//   TillProtocol, TillIO  <-  TillSimulator
//   TillProtocol, TillModel  <-  TillLife (a payment's life: pure)
//   TillProtocol, TillIO, TillModel, TillLife  <-  TillCore (re-exports TillModel and TillLife)
//   TillSimulator, TillCore  <-  TillSimulatorTransport  <-  till
//   TillUI, TillModel  <-  TillTerminal  <-  till
// TillProtocol is pure (no I/O); TillModel is the pure service contract and its value types (entries, reports).
// TillIO holds the few file/inotify primitives the transports share. TillCore does not know the simulator: the
// built-in simulator's transport is TillSimulatorTransport, and the executable makes each transport from the config.
// TillUI is pure (state + message -> state, view -> cells) and cannot reach the journal or the transports: it depends
// on TillModel, not TillCore.
// Only TillTerminal touches ncurses (through the CNcurses system library).
// Every target lists what it imports, no more.
let package = Package(
    name: "till",
    products: [
        .executable(name: "till", targets: ["till"]),
        .executable(name: "till-sync", targets: ["till-sync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // The central store's client: only till-sync and its tests link it, never the cashier's till.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .systemLibrary(name: "CNcurses", path: "Sources/CNcurses",
                       providers: [.apt(["libncurses-dev"])]),
        .target(name: "TillProtocol"),
        .target(name: "CSpawn"),
        .target(name: "TillIO", dependencies: ["CSpawn"]),
        .target(name: "TillSimulator", dependencies: ["TillProtocol", "TillIO"]),
        .target(name: "TillModel", dependencies: ["TillProtocol"]),
        // A payment's life as one pure value (events in, effects out, its next deadline) and the rules of which answer
        // settles what: no I/O, no clock, no timer of its own; the controller and the virtual-clock simulation drive it.
        .target(name: "TillLife", dependencies: ["TillProtocol", "TillModel"]),
        .target(name: "TillCore", dependencies: [
            "TillProtocol", "TillModel", "TillLife", "TillIO",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "TOMLKit", package: "TOMLKit"),
        ]),
        .target(name: "TillSimulatorTransport", dependencies: ["TillCore", "TillSimulator"]),
        .target(name: "TillUI", dependencies: ["TillProtocol", "TillModel",
            .product(name: "TOMLKit", package: "TOMLKit")]),
        .target(name: "TillTerminal", dependencies: ["TillUI", "TillModel", "TillProtocol", "TillIO", "CNcurses"]),
        .executableTarget(name: "till", dependencies: [
            "TillProtocol", "TillModel", "TillIO", "TillSimulator", "TillCore", "TillSimulatorTransport", "TillUI", "TillTerminal",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The sync to the central store: reads the journal's outbox (TillCore) and pushes it to PostgreSQL.
        .target(name: "TillStore", dependencies: [
            "TillCore", "TillModel", "TillProtocol", "TillIO",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "till-sync", dependencies: [
            "TillStore", "TillIO", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "TillBench", dependencies: [
            "TillProtocol", "TillIO", "TillSimulator", "TillCore", "TillUI",
        ]),
        // What several test targets share: golden files' one regeneration switch.
        .target(name: "TillTestSupport", path: "Tests/TillTestSupport"),
        .testTarget(name: "TillProtocolTests", dependencies: ["TillProtocol"]),
        .testTarget(name: "TillSimulatorTests", dependencies: ["TillSimulator", "TillProtocol", "TillIO", "TillTestSupport"],
                    exclude: ["golden-transcript.txt"]),
        .testTarget(name: "TillCoreTests", dependencies: ["TillCore", "TillSimulator", "TillSimulatorTransport", "TillProtocol", "TillIO",
                                                          .product(name: "GRDB", package: "GRDB.swift")]),
        // Against a real PostgreSQL: scripts/pg-test-server starts a private one (scripts/test does).
        .testTarget(name: "TillStoreTests", dependencies: ["TillStore", "TillCore", "TillModel", "TillProtocol", "TillIO",
                                                           .product(name: "GRDB", package: "GRDB.swift"),
                                                           .product(name: "PostgresNIO", package: "postgres-nio"),
                                                           .product(name: "Logging", package: "swift-log")],
                    exclude: ["delay-proxy.py"]),
        .testTarget(name: "TillModelTests", dependencies: ["TillModel", "TillProtocol"]),
        // A payment's life on a virtual clock: the pure machine against a terminal with its own ledger, a million events.
        .testTarget(name: "TillLifeTests", dependencies: ["TillLife", "TillModel", "TillProtocol", "TillSimulator"]),
        .testTarget(name: "TillUITests", dependencies: ["TillUI", "TillModel", "TillProtocol", "TillTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "TillE2ETests", dependencies: []),
        // The executable's own code (its quick start's reading of the command line against ArgumentParser's).
        .testTarget(name: "TillCommandTests", dependencies: ["till", "TillSimulator", "TillUI", "TillModel", "TillProtocol", "TillIO",
                                                           .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // The whole system at once: the pure UI driven by keys, the real controller, journal and simulator.
        .testTarget(name: "TillSystemTests", dependencies: ["TillUI", "TillModel", "TillCore", "TillSimulator", "TillSimulatorTransport",
                                                            "TillProtocol", "TillIO"]),
    ]
)
