import Foundation
import Synchronization
import Testing
@testable import TillCore
import TillIO
import TillModel
import TillProtocol
import TillSimulator
import TillSimulatorTransport
@testable import TillUI

// The whole-system randomized test (issue 9), in the spirit of FoundationDB's and TigerBeetle's simulation tests:
// a seeded cashier presses keys on the pure UI (`update`), its commands run through the real controller, a real
// SQLite journal in a temporary folder and the simulator (the terminal's ledger is the truth), while the link drops,
// repeats, alters and delays answers, strays arrive, a journal write fails, and till is killed and restarted.
// After every step the money guarantees are checked:
//   1. one charge, one row: every charge of the ledger appears at most once as approved, with the terminal's amount
//      and tip, and is never journaled as not charged; nothing the terminal did not charge is approved;
//   2. reports equal the journal: the summary-table report equals a fresh aggregation of the journal's rows;
//   3. what was shown is what was sent: a sale is only sent from a form with no error, for the amount, tip,
//      instalments and reference on the screen, and the journal records exactly that request;
//   6. nothing silently re-sent: no payment is sent while an earlier one is unknown unless the cashier confirmed it;
//   and the screen is never left "busy" with nothing in flight.
// A failure prints its seed and a shrunk step list. CI runs the fixed seeds below; `TILL_SIM_SEEDS=N` runs N seeds,
// `TILL_SIM_STEPS=N` sets the steps per seed.

/// One thing that happens in a run.
enum Step: Hashable, Sendable, CustomStringConvertible {
    case key(Key)
    case text(String)
    case resize(Int, Int)
    case fault(AnswerFault)
    case stray(Int)
    case releaseHeld
    case journalFault
    case killRestart
    /// Enter, then Esc after `ms` milliseconds while the payment is in flight: an abort race.
    case enterThenEsc(Int)
    /// Enter, then at once (the terminal still working) the next customer's amount: typing ahead.
    case enterThenType(String)
    /// Esc, then the right amount typed at once (a wrong one was typed): within the escape delay the first digit comes
    /// with the Esc, as Alt and the digit.
    case escThenAmount(String)
    /// A flood of `n` distinct stray answers from the link, at once.
    case flood(Int)
    /// Killed again while the restarted till's recovery is asking the terminal.
    case killDuringRecovery
    /// The cashier answers what the screen asks (truthfully, having looked at the terminal); `n` picks among choices.
    case cashier(Int)
    /// Types a STAN the terminal issued (the `n`-th it knows), for a refund or capture.
    case knownStan(Int)
    case wait(Int)
    /// A careful cashier's habit (`TILL_SIM_CAREFUL=1`): moves to the amount and clears it before typing.
    case freshAmount

    var description: String {
        switch self {
        case .key(let k): return "key(\(k))"
        case .text(let t): return "text(\"\(t)\")"
        case .resize(let w, let h): return "resize(\(w)x\(h))"
        case .fault(let f): return "fault(\(f.rawValue))"
        case .stray(let n): return "stray(\(n))"
        case .releaseHeld: return "releaseHeld"
        case .journalFault: return "journalFault"
        case .killRestart: return "killRestart"
        case .enterThenEsc(let ms): return "enterThenEsc(\(ms)ms)"
        case .enterThenType(let t): return "enterThenType(\"\(t)\")"
        case .escThenAmount(let t): return "escThenAmount(\"\(t)\")"
        case .flood(let n): return "flood(\(n))"
        case .killDuringRecovery: return "killDuringRecovery"
        case .cashier(let n): return "cashier(\(n))"
        case .knownStan(let n): return "knownStan(\(n))"
        case .wait(let ms): return "wait(\(ms)ms)"
        case .freshAmount: return "freshAmount"
        }
    }
}

/// The seeded cashier: a shift's worth of steps, with faults sprinkled in.
func generateSteps(seed: UInt64, count: Int) -> [Step] {
    // One SplitMix64 step first: streams seeded n and n+k would otherwise be the same stream shifted by k.
    var seeder = SplitMix64(state: seed)
    var rng = SplitMix64(state: seeder.next())
    func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    let amounts = ["12.50", "6.66", "9.09", "13.13", "7.77", "5.51", "4.04", "8.08", "1", "0,99", "20", "3.3", "42.00", "-3", "10.5.5", "12,345"]
    var steps: [Step] = [.key(.f(6)), .text("Shift \(seed)"), .key(.enter), .cashier(0)]
    while steps.count < count {
        switch pick(100) {
        case 0..<34:   // a sale, sometimes with a tip, instalments or a reference
            steps.append(.key(.f(2)))
            if ProcessInfo.processInfo.environment["TILL_SIM_CAREFUL"] != nil || pick(2) == 0 { steps.append(.freshAmount) }
            if pick(5) == 0 {
                // A wrong amount, then Esc and the right one typed at once.
                steps += [.text(["30", "12", "8"][pick(3)]), .escThenAmount(["25", "38", "15", "3.30"][pick(4)])]
            } else {
                steps.append(.text(amounts[pick(amounts.count)]))
            }
            // The tip presets in turn (Ctrl-t): 5 %, 10 %, 15 %, none.
            if pick(4) == 0 { steps += Array(repeating: .key(.ctrl("t")), count: 1 + pick(4)) }
            if pick(6) == 0 { steps += [.key(.tab), .key(.tab), .text(String(2 + pick(5)))] }
            if pick(8) == 0 { steps += [.key(.backTab), .text("ref-\(pick(3))")] }
            if pick(7) == 0 { steps.append(.enterThenEsc(pick(60))) } else { steps.append(.key(.enter)) }
            steps.append(.cashier(pick(4)))
        case 34..<44: steps.append(.fault(AnswerFault.allCases[pick(AnswerFault.allCases.count)]))
        case 44..<48: steps.append(.stray(pick(FaultyTransport.strays.count)))
        case 48..<51: steps.append(.releaseHeld)
        case 51..<53: steps.append(.journalFault)
        case 53..<55: steps.append(.killRestart)
        case 55..<61: steps += [.key(.f(8)), .key(.enter), .cashier(pick(4))]
        case 61..<65: steps += [.key(.f(5)), .knownStan(pick(8)), .key(.enter), .cashier(pick(4))]
        case 65..<67: steps += [.key(.f(3)), .text(amounts[pick(amounts.count)]), .key(.enter), .cashier(pick(4))]
        case 67..<69: steps += [.key(.f(4)), .knownStan(pick(8)), .key(.enter), .cashier(pick(4))]
        case 69..<71: steps += [.key(.f(6)), .key(.ctrl("k")), .cashier(pick(4))]
        case 71..<73: steps += [.key(.f(6)), .text("Next \(pick(9))"), .key(.enter), .cashier(pick(4))]
        case 73..<76: steps.append(.resize([80, 40, 120, 100][pick(4)], [24, 12, 40, 30][pick(4)]))
        case 76..<80: steps.append(.wait(50 + pick(300)))
        case 80..<84: steps += [.key(.f(7)), .key(.enter), .key(.esc)]
        case 97..<98: steps += [.key(.f(2)), .freshAmount, .text("9.99"), .key(.enter), .flood(60 + pick(60)), .cashier(0)]
        case 98..<99: steps += [.fault(.drop), .key(.f(2)), .freshAmount, .text("6.06"), .key(.enter), .killDuringRecovery]
        case 92..<97:   // a cashier on a busy Saturday: the next customer's amount typed while the terminal works
            let a = ["12.50", "7", "4", "20"][pick(4)], b = ["7", "5", "3.30", "20"][pick(4)]
            steps += [.key(.f(2)), .freshAmount, .text(a), .enterThenType(b), .cashier(0), .key(.enter), .cashier(pick(2))]
        case 84..<92:   // a sale through a misbehaving terminal
            let misbehaviour: [AnswerFault] = [.unnamedFailureFirst, .unnamedApprovalFirst, .repeatEarlierAnswer, .abortOfAnotherFirst, .approvalOfAnotherFirst,
                                               .unreadableAmount, .declineThenLateApproval]
            steps += [.fault(misbehaviour[pick(misbehaviour.count)]), .key(.f(2)), .freshAmount, .text(["12.50", "7.77", "20", "4.04"][pick(4)]),
                      .key(.enter), .cashier(pick(2))]
        default:
            let noise: [Key] = [.tab, .backTab, .enter, .esc, .char("-"), .char(","), .char("."), .char("7"), .char("%"),
                                .f(2), .f(7), .f(8), .backspace, .delete, .ctrl("u"), .down, .up, .f(9), .char("y"), .char("x")]
            steps.append(.key(noise[pick(noise.count)]))
        }
    }
    return steps
}

/// Messages for the UI, tagged with the life of till they belong to (a killed till's replies are dropped).
final class Inbox: Sendable {
    private struct State { var items: [(Int, Msg)] = []; var running = 0 }
    private let state = Mutex(State())
    func post(_ gen: Int, _ m: Msg) { state.withLock { $0.items.append((gen, m)) } }
    func begin() { state.withLock { $0.running += 1 } }
    func end() { state.withLock { $0.running -= 1 } }
    func drain() -> [(Int, Msg)] { state.withLock { s in defer { s.items = [] }; return s.items } }
    var idle: Bool { state.withLock { $0.items.isEmpty && $0.running == 0 } }
}

/// One run of the whole system for a list of steps; collects violations of the guarantees.
final class SystemRun: @unchecked Sendable {
    let dir: String
    let seed: UInt64
    let inbox = Inbox()
    var gen = 0
    var controller: TillController!
    var transport: FaultyTransport!
    /// The simulated terminal's ledger, the truth the checks compare with.
    var terminal: SimulatorRunner!
    var eventTask: Task<Void, Never>?
    var state = AppState()
    var violations: [String] = []
    var stepIndex = 0
    /// Sale requests the UI emitted and the controller has not answered yet (to compare with what was journaled).
    var emitted: [Request] = []
    /// Payment entries waiting for the terminal at the last check (id → created at).
    var awaitingBefore: Set<Int64> = []
    var seenPayments: Set<Int64> = []
    /// What the cashier means to charge: the first text typed after F2 (a fresh sale for the next customer).
    var intendedAmount: String?
    var expectingAmount = false
    /// Each amount the cashier typed as a whole (one customer each): cents → how many times. A charge must be one of
    /// them, and no amount is charged more often than it was typed (or charged again on the cashier's explicit word).
    var customers: [Int: Int] = [:]
    var chargeAgainConfirmed = 0
    var lastKey: Key?
    var stats: [String: Int] = [:]

    /// How this till's terminal reads the tip (config `tip`): odd seeds run with the tip included in the amount, so
    /// that "what was shown is what was sent" is checked in both styles.
    let tipStyle: TipStyle

    init(seed: UInt64) {
        self.seed = seed
        tipStyle = seed % 2 == 1 ? .included : .onTop
        var template = Array("/tmp/till-system-XXXXXX".utf8CString)
        dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func violate(_ what: String) { violations.append("step \(stepIndex): \(what)") }

    func startTill() async throws {
        gen += 1
        let sim = SimulatorTransport(config: SimulatorConfig(seed: seed, speed: 0.01), statePath: dir + "/simulator-state.json")
        let carried = transport?.late ?? []
        transport = FaultyTransport(sim)
        transport.late = carried
        controller = TillController(transport: transport, journal: try Journal(path: dir + "/journal.sqlite", tipStyle: tipStyle), caller: testCaller,
                                    timeoutMs: 250, abortWaitMs: 300)
        let g = gen, inbox = self.inbox, stream = controller.events()
        eventTask = Task.detached { for await e in stream { inbox.post(g, .event(e)) } }
        try await controller.start()
        terminal = try await sim.runner()
        state = AppState(keymap: .standard, size: Size(width: 80, height: 24), nowMs: WallClock.nowMs(), tzOffsetMinutes: 0,
                         transport: "simulator")
        state.tipStyle = tipStyle
        emitted = []
        dispatch(initialCommands(&state))
    }

    func dispatch(_ cmds: [Command]) {
        let service = controller!, inbox = self.inbox, g = gen
        for c in cmds {
            inbox.begin()
            Task.detached {
                defer { inbox.end() }
                switch c {
                case .perform(let r, let summary): inbox.post(g, .performed(await service.perform(r), summary: summary))
                case .performConfirmed(let r, let summary, let ids):
                    inbox.post(g, .performed(await service.perform(r, confirmingUnknown: ids), summary: summary))
                case .abort: inbox.post(g, .aborted(await service.abort()))
                case .stopWaiting:
                    if case .journalFailed(_, let m)? = await service.stopWaiting() { inbox.post(g, .stoppedWaiting(error: m)) }
                    else { inbox.post(g, .stoppedWaiting(error: nil)) }
                case .loadJournal(let f): inbox.post(g, .journalLoaded(await service.entries(f)))
                case .findPayment(let screen, let finder):
                    inbox.post(g, .paymentsFound(screen: screen, finder: finder, entries: await service.entries(JournalFilter(scope: .all))))
                case .loadBatch: inbox.post(g, .batchLoaded(await service.batch()))
                case .recover: inbox.post(g, .unresolvedLoaded(await service.recover(), recovered: true))
                case .loadUnresolved: inbox.post(g, .unresolvedLoaded(await service.unresolved(), recovered: false))
                case .loadStoreSync: inbox.post(g, .storeSyncLoaded(await service.storeSync()))
                case .resolve(let id, let charged, let note):
                    do { try await service.resolve(entryId: id, charged: charged, note: note); inbox.post(g, .resolved(entryId: id, charged: charged, error: nil)) }
                    catch { inbox.post(g, .resolved(entryId: id, charged: charged, error: "\(error)")) }
                case .loadReport(let b, let show): inbox.post(g, .reportLoaded(await service.report(batch: b), show: show))
                case .exportReport: inbox.post(g, .exported(paths: [], error: "not in this test"))
                case .quit: break
                }
            }
        }
    }

    /// Applies a key the way the runtime does, checking guarantee 3 on every request it sends.
    func press(_ k: Key) {
        let before = state
        // What the cashier means: the amount already on the sale screen plus what they type after F2.
        // (An F2 that a confirmation on screen swallows is no fresh sale.)
        // From another screen, F2 keeps an amount left there only until the cashier types: then typing replaces it; so
        // does an amount the screen shows selected (kept after a box, or a sale not sent).
        if k == .f(2) && before.overlay == nil {
            expectingAmount = true
            let amount = before.forms[.sale]?.fields.first { $0.id == .amount }
            intendedAmount = before.screen == .sale && amount?.selected != true ? (amount?.text ?? "") : ""
        }
        else if k == .f(2) { expectingAmount = false; intendedAmount = nil } else if case .char = k {} else { expectingAmount = false }
        if [.backspace, .delete, .ctrl("u"), .esc].contains(k) && before.screen == .sale { intendedAmount = nil }
        let cmds = update(&state, .key(k))
        defer { lastKey = k }
        for c in cmds {
            switch c {
            case .perform(let r, _), .performConfirmed(let r, _, _):
                // A box that moves money acts on a pick (y, or a number), never on Enter alone.
                if case .confirm? = before.overlay, r.action.movesMoney {
                    let picked: Bool = { if case .char(let ch)? = lastKey { return ch == "y" || ch.isNumber }; return false }()
                    if k == .enter && !picked { violate("a box moved money (\(r.action.rawValue)) on Enter alone") }
                    if case .sale(let sr) = r { customers[tipStyle.goods(amount: sr.amount, tip: sr.tipAmount).cents, default: 0] += 1 }
                }
            default: break
            }
        }
        for c in cmds {
            switch c {
            case .perform(let r, _):
                checkShownIsSent(before, r)
                if case .sale(let s) = r, before.overlay == nil, let intended = intendedAmount {
                    if let want = try? Money.parse(intended) {
                        // The goods sent (with the tip included, the amount holds the tip the request also names).
                        let goods = tipStyle.goods(amount: s.amount, tip: s.tipAmount)
                        if want != goods { violate("the cashier typed '\(intended)' after F2, \(goods) was sent (amount \(s.amount), tip \(String(describing: s.tipAmount)))") }
                    } else {
                        violate("the cashier typed '\(intended)' after F2 (not an amount), yet \(s.amount) was sent")
                    }
                }
                stats["sent", default: 0] += 1
                emitted.append(r)
            case .performConfirmed(let r, _, _):
                emitted.append(r)
            default: break
            }
        }
        dispatch(cmds)
    }

    /// Guarantee 3: the request is exactly what the form on the screen said, and no field showed an error.
    func checkShownIsSent(_ before: AppState, _ r: Request) {
        guard before.overlay == nil, case .sale(let s) = r else { return }
        let form = before.form
        guard before.screen == .sale else { violate("a sale was sent from the \(before.screen) screen"); return }
        if !form.errors.isEmpty { violate("a sale was sent while the screen showed errors \(form.errors) (amount '\(form[.amount])')") }
        let amountText = form[.amount].trimmingCharacters(in: .whitespaces)
        guard let shown = try? Money.parse(amountText) else { violate("a sale of \(s.amount) was sent, the screen showed '\(amountText)'"); return }
        let tipText = form[.tipAmount].trimmingCharacters(in: .whitespaces)
        let shownTip: Money? = tipText.isEmpty ? nil : (try? tipValue(tipText, amount: shown).get())
        // The amount field the terminal reads: the goods shown, with the tip in it when the terminal reads it so.
        let expected = tipStyle.requestAmount(goods: shown, tip: shownTip)
        if expected != s.amount { violate("sent \(s.amount), the screen showed \(shown) and tip '\(tipText)' (\(tipStyle.rawValue): \(expected))") }
        if (shownTip?.cents ?? 0) != (s.tipAmount?.cents ?? 0) { violate("sent tip \(String(describing: s.tipAmount)), the screen showed '\(tipText)'") }
        let inst = form[.preferredInstallments].trimmingCharacters(in: .whitespaces)
        let sentInst = s.withInstallments == true ? s.preferredInstallments : nil
        if (inst.isEmpty ? nil : Int(inst)) != sentInst && !(inst == "1" && sentInst == nil) && !(inst == "0" && sentInst == nil) {
            violate("sent instalments \(String(describing: sentInst)), the screen showed '\(inst)'")
        }
        let ref = form[.clientTransactionId].trimmingCharacters(in: .whitespaces)
        if !ref.isEmpty && s.clientTransactionId != ref { violate("sent reference \(String(describing: s.clientTransactionId)), the screen showed '\(ref)'") }
    }

    /// Runs messages and commands until nothing moves (with a deadline: a screen that never settles is a failure).
    func quiesce() async {
        // Generous: a screen that never settles is still caught, but a machine whose other tests hold the cooperative
        // threads for a while is not taken for one.
        let deadline = Date().addingTimeInterval(60)
        var quietSince: Date?
        while Date() < deadline {
            let msgs = inbox.drain()
            for (g, m) in msgs where g == gen { handle(m) }
            if msgs.isEmpty && inbox.idle {
                if let q = quietSince, Date().timeIntervalSince(q) > 0.02 { return }
                if quietSince == nil { quietSince = Date() }
            } else {
                quietSince = nil
            }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        violate("the system did not settle within 60 s (pending: \(String(describing: state.pending)))")
    }

    /// One message to the UI, as the runtime delivers it.
    func handle(_ m: Msg) {
        if case .performed(let outcome, _) = m {
            checkJournaledRequest(outcome)
            // The cashier is never told NOT CHARGED, DECLINED or ABORTED for a payment the terminal charged, unless the
            // terminal itself said so first and its approval is still on its way (a terminal that corrects itself: the
            // approval, when it comes, settles the payment and the screen says CHECK THE TERMINAL).
            if let e = outcome.journalEntry, e.action == .sale || e.action == .preAuth, [.declined, .aborted, .resolved].contains(e.state),
               let ctid = e.clientTransactionId, ledger().contains(where: { $0.approved && $0.clientTransactionId == ctid }),
               !transport.holdsApproval(of: ctid) {
                violate("the cashier was shown \(e.state.rawValue) for entry \(e.id), which the terminal charged")
            }
        }
        dispatch(update(&state, m))
    }

    /// Guarantee 3, journal side: the journal recorded exactly the request the UI emitted.
    func checkJournaledRequest(_ outcome: ActionOutcome) {
        guard !emitted.isEmpty else { return }
        let r = emitted.removeFirst()
        guard case .sale(let s) = r, let e = outcome.journalEntry, e.action == .sale, e.requestId.hasPrefix("unmatched-") == false else { return }
        guard let asked = try? controller.journal.requestedAmounts(of: e.id) else { return }
        if asked.amount != s.amount || (asked.tip?.cents ?? 0) != (s.tipAmount?.cents ?? 0) {
            violate("journal entry \(e.id) records \(String(describing: asked)) but \(s.amount) + \(String(describing: s.tipAmount)) was sent")
        }
    }

    func ledger() -> [SimTransaction] { terminal.state.transactions }

    /// The cashier answers what the screen asks, truthfully: they look at the terminal (the ledger) before saying
    /// "charged" or "not charged".
    func cashier(_ n: Int) {
        guard case .confirm(let c)? = state.overlay else { return }
        if c.title.hasPrefix("Resolve") {
            guard state.unresolved.entries.indices.contains(state.unresolved.selected) else { press(.esc); return }
            let e = state.unresolved.entries[state.unresolved.selected]
            let charged = ledger().contains { $0.approved && $0.clientTransactionId != nil && $0.clientTransactionId == e.clientTransactionId
                && (e.action == .sale || e.action == .preAuth) }
            press(.char(charged ? "c" : "x"))
            return
        }
        switch n {
        case 0, 1: press(.char(c.choices.first?.key ?? "y"))
        case 2: press(.enter)
        default: press(.esc)
        }
    }

    func step(_ s: Step) async throws {
        switch s {
        case .key(let k):
            press(k)
            // A character the cashier saw land in an amount field: what the field now shows is what they mean.
            if case .char = k, state.overlay == nil, state.form.focused?.id == .amount,
               let m = try? Money.parse(state.form[.amount]), m.cents > 0 {
                customers[m.cents, default: 0] += 1
            }
        case .text(let t):
            if expectingAmount { intendedAmount = (intendedAmount ?? "") + t }
            if let m = try? Money.parse(t), m.cents > 0 { customers[m.cents, default: 0] += 1 }
            for ch in t { press(.char(ch)) }
        case .resize(let w, let h): dispatch(update(&state, .resize(Size(width: w, height: h))))
        case .fault(let f): transport.setNextFault(f)
        case .stray(let n): transport.inject(FaultyTransport.strays[n % FaultyTransport.strays.count])
        case .flood(let n):
            for i in 0..<n {
                transport.inject(FaultyTransport.strays[i % FaultyTransport.strays.count] + "&flood=\(stepIndex)-\(i)")
            }
        case .killDuringRecovery:
            await controller.simulateKill()
            eventTask?.cancel()
            try await startTill()       // its recovery starts asking the terminal…
            try await Task.sleep(nanoseconds: 2_000_000)
            await controller.simulateKill()   // …and the till is killed again meanwhile
            eventTask?.cancel()
            try await startTill()
        case .releaseHeld: transport.releaseHeld()
        case .journalFault: controller.journal.faults.failWrites(1)
        case .killRestart:
            await controller.simulateKill()
            eventTask?.cancel()
            try await startTill()
        case .enterThenEsc(let ms):
            press(.enter)
            try await Task.sleep(nanoseconds: UInt64(ms) * 1_000_000)
            for (g, m) in inbox.drain() where g == gen { handle(m) }
            press(.esc)
        case .cashier(let n): cashier(n)
        case .enterThenType(let t):
            press(.enter)
            if let m = try? Money.parse(t), m.cents > 0 { customers[m.cents, default: 0] += 1 }
            // What is typed while the terminal works is the next customer's amount, alone.
            let inFlight = state.pending != nil
            for ch in t { press(.char(ch)) }
            if inFlight { expectingAmount = true; intendedAmount = t }
        case .escThenAmount(let t):
            // On Sale with nothing in flight and no box, Esc clears the form: what follows is the amount meant.
            let clears = state.screen == .sale && state.pending == nil && state.overlay == nil
            guard let first = t.first else { break }
            if let m = try? Money.parse(t), m.cents > 0 { customers[m.cents, default: 0] += 1 }
            press(.alt(first))
            for ch in t.dropFirst() { press(.char(ch)) }
            if clears { expectingAmount = true; intendedAmount = t } else { intendedAmount = nil }
        case .knownStan(let n):
            let stans = ledger().filter { $0.approved && !$0.referenceNumber.isEmpty }.map(\.referenceNumber)
            let stan = stans.isEmpty ? "000001" : stans[n % stans.count]
            for ch in stan { press(.char(ch)) }
        case .wait(let ms): try await Task.sleep(nanoseconds: UInt64(ms) * 1_000_000)
        case .freshAmount:
            for _ in 0..<8 where state.form.focused?.id != .amount { press(.tab) }
            press(.ctrl("u"))
            if state.form.focused?.id == .amount { expectingAmount = true; intendedAmount = "" }
        }
        await quiesce()
        await check()
        if SystemRun.trace {
            var o = ""
            if case .confirm(let c)? = state.overlay { o = " overlay=" + c.title } else if state.overlay != nil { o = " overlay" }
            print("  \(stepIndex) \(s) → \(state.screen) focus=\(state.form.focused?.id.rawValue ?? "-") '\(state.form[.amount])'\(o) notice=\(state.notice ?? "")")
        }
    }
    static let trace = ProcessInfo.processInfo.environment["TILL_SIM_TRACE"] != nil

    /// The guarantees, against the simulator's ledger as the truth.
    func check() async {
        let journal = controller.journal
        guard let entries = try? journal.entries(JournalFilter(limit: 1_000_000)) else { violate("the journal could not be read"); return }
        let ledger = self.ledger()
        let charged = ledger.filter { $0.approved && ($0.kind == .sale || $0.kind == .preAuth) }
        let byTransaction = Dictionary(charged.map { ($0.transactionId, $0) }, uniquingKeysWith: { a, _ in a })
        let payments = entries.filter { ($0.action == .sale || $0.action == .preAuth) && !$0.requestId.hasPrefix("unmatched-") }

        // 1. Nothing the terminal did not charge is approved; approved rows carry the terminal's amount and tip.
        var approvedPerTransaction: [String: Int] = [:]
        for e in payments where e.state == .approved {
            if e.note?.hasPrefix("Marked charged") == true {
                if !charged.contains(where: { $0.clientTransactionId == e.clientTransactionId }) {
                    violate("entry \(e.id) was marked charged but the terminal has no such charge")
                }
                continue
            }
            guard let t = e.response?.transactionId, let l = byTransaction[t] else {
                violate("entry \(e.id) (\(e.action.rawValue) \(String(describing: e.amount))) is approved but the terminal charged nothing for it")
                continue
            }
            approvedPerTransaction[t, default: 0] += 1
            if e.amount?.cents != l.amount || (e.action == .sale && (e.tipAmount?.cents ?? 0) != l.tipAmount) {
                violate("entry \(e.id) counts \(String(describing: e.amount)) + \(String(describing: e.tipAmount)), the terminal charged \(l.amount) + \(l.tipAmount)")
            }
        }
        for (t, n) in approvedPerTransaction where n > 1 { violate("transaction \(t) is approved in \(n) journal rows") }
        // 1. Every charge is in the journal once, never as "not charged".
        for l in charged {
            let rows = payments.filter { $0.clientTransactionId == l.clientTransactionId }
            if rows.count != 1 { violate("the terminal's charge \(l.referenceNumber) (\(l.amount)) has \(rows.count) journal rows") ; continue }
            let st = rows[0].state
            // "Not charged so far" only while its approval is still on its way (the link holds it); never after.
            let onItsWay = l.clientTransactionId.map(transport.holdsApproval(of:)) ?? false
            if ![.approved, .pending, .sent, .unknown, .review].contains(st), !(onItsWay && [.declined, .aborted, .resolved].contains(st)) {
                violate("the terminal charged \(l.amount) (STAN \(l.referenceNumber)) but entry \(rows[0].id) says \(st.rawValue)")
            }
        }
        // Every approved payment is in exactly one report: filed under a batch the journal knows.
        let batchIds = Set(((try? journal.batches()) ?? []).compactMap(\.id))
        for e in payments where e.state == .approved && !(e.batchId.map(batchIds.contains) ?? false) {
            violate("approved entry \(e.id) is in no report (batch \(e.batchId ?? "none"))")
        }
        // The export's paid: nothing for a row that moved no money; what the terminal charged for each approved sale.
        var paidSales = 0, chargedSales = 0
        for e in entries {
            let p = TransactionExport.paid(e, amount: Money(cents: ReportBucket.amountCents(of: e)), tip: Money(cents: ReportBucket.tipCents(of: e))).cents
            if e.state != .approved && p != 0 { violate("entry \(e.id) (\(e.state.rawValue)) has paid \(p) in the export") }
            guard e.action == .sale, e.state == .approved, !e.requestId.hasPrefix("unmatched-") else { continue }
            paidSales += p
            if let t = e.response?.transactionId, let l = byTransaction[t] {
                chargedSales += tipStyle.charged(amount: Money(cents: l.amount), tip: Money(cents: l.tipAmount)).cents
            } else {
                chargedSales += p   // marked charged by the cashier: checked against the ledger above
            }
        }
        if paidSales != chargedSales { violate("the export's paid for approved sales is \(paidSales), the terminal charged \(chargedSales)") }
        // The cashier's intent: every sale the terminal charged is an amount the cashier typed for a customer, and
        // none is charged more often than it was typed (or charged again at the cashier's explicit word).
        var chargedTimes: [Int: Int] = [:]
        for l in ledger where l.approved && l.kind == .sale {
            let goods = tipStyle.goods(amount: Money(cents: l.amount), tip: Money(cents: l.tipAmount)).cents
            chargedTimes[goods, default: 0] += 1
        }
        for (goods, n) in chargedTimes where n > customers[goods, default: 0] {
            violate("the terminal charged \(Money(cents: goods)) \(n) time(s); the cashier typed it for \(customers[goods, default: 0]) customer(s)")
        }
        // Unmatched answers are never counted.
        for e in entries where e.requestId.hasPrefix("unmatched-") && (e.state == .approved || e.state == .declined) {
            violate("unmatched answer \(e.id) is \(e.state.rawValue)")
        }

        // 2. Reports equal the journal (the trigger-kept summary against a fresh aggregation), current batch and none.
        let batch = (try? journal.batch()) ?? BatchInfo()
        for key in Set([batch.isOpen ? batch.id : nil, nil]) {
            guard let (rows, buckets) = try? journal.entriesAndBuckets(batchId: key) else { continue }
            let summary = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: buckets)
            let fresh = Report(kind: .running, batch: nil, generatedAtMs: 0, buckets: ReportBucket.aggregate(rows))
            for (name, a, b) in [("sales", summary.sales, fresh.sales), ("tips", summary.tips, fresh.tips), ("refunds", summary.refunds, fresh.refunds),
                                 ("pre-auths", summary.preAuths, fresh.preAuths), ("captures", summary.captures, fresh.captures),
                                 ("declined", summary.declined, fresh.declined), ("aborted", summary.aborted, fresh.aborted),
                                 ("waiting", summary.waiting, fresh.waiting), ("unknown", summary.unknown, fresh.unknown),
                                 ("review", summary.review, fresh.review)] where a != b {
                violate("report \(name) \(a) ≠ journal \(b) (batch \(key ?? "none"))")
            }
            let approvedSales = rows.filter { $0.action == .sale && $0.state == .approved }
            if summary.sales.cents != approvedSales.reduce(0, { $0 + ($1.goods?.cents ?? 0) }) { violate("report sales ≠ sum of the goods of the approved sale rows") }
        }

        // 6. No payment sent while an earlier one was unknown, unless the cashier confirmed it.
        for f in payments where !seenPayments.contains(f.id) {
            for eid in awaitingBefore where eid < f.id {
                guard let e = try? journal.entry(id: eid) else { continue }
                let stillOpenThen = e.state.awaitsTerminal || e.updatedAtMs > f.createdAtMs
                if stillOpenThen, (try? journal.retryConfirmedAtMs(of: eid)) ?? nil == nil {
                    violate("payment \(f.id) was sent while payment \(eid) was \(e.state.rawValue), without the cashier confirming it")
                }
            }
        }
        seenPayments.formUnion(payments.map(\.id))
        for e in entries { stats["final-" + e.state.rawValue, default: 0] += 0 }
        awaitingBefore = Set(payments.filter { $0.state.awaitsTerminal }.map(\.id))

        // The screen is never left "busy" with nothing in flight.
        if state.pending != nil, await controller.inFlight() == nil {
            violate("the screen shows '\(state.pending!.summary)' in flight, but nothing is")
        }
    }

    func run(_ steps: [Step], stopAtFirst: Bool = true) async throws -> [String] {
        try await startTill()
        await quiesce()
        for (i, s) in steps.enumerated() {
            stepIndex = i
            try await step(s)
            if stopAtFirst && !violations.isEmpty { break }
        }
        if violations.isEmpty {
            // A calm end: every late approval delivered, and each journaled (acknowledged) by the running till.
            transport.releaseHeld()
            for _ in 0..<200 where !transport.late.isEmpty {
                await quiesce()
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
            await check()
            if !transport.late.isEmpty { violate("at the end, \(transport.late.count) late approval(s) handed to till were never journaled") }
        }
        if let entries = try? controller.journal.entries(JournalFilter(limit: 1_000_000)) {
            for e in entries { stats[e.action.rawValue + "." + e.state.rawValue, default: 0] += 1 }
        }
        await controller.shutdown()
        eventTask?.cancel()
        return violations
    }
}

/// Removes chunks of steps while the run still fails (delta debugging); returns the shortest failing list found.
func shrink(seed: UInt64, _ steps: [Step], budgetSeconds: Double = 120) async -> [Step] {
    var best = steps
    var chunk = max(1, best.count / 2)
    // The same failure, not any failure: compare the first violation's words without its numbers and quotes.
    func kind(_ v: String) -> String {
        String(v.drop(while: { $0 != ":" }).filter { !$0.isNumber }.split(separator: "'").enumerated().filter { $0.offset % 2 == 0 }
            .map(\.element).joined().prefix(40))
    }
    guard let original = try? await SystemRun(seed: seed).run(steps), let firstOriginal = original.first else { return steps }
    let target = kind(firstOriginal)
    let end = Date().addingTimeInterval(budgetSeconds)
    while chunk >= 1 && Date() < end {
        var i = 0
        var removed = false
        while i < best.count && Date() < end {
            var candidate = best
            candidate.removeSubrange(i..<min(best.count, i + chunk))
            if let v = try? await SystemRun(seed: seed).run(candidate), let first = v.first, kind(first) == target {
                best = candidate
                removed = true
            } else {
                i += chunk
            }
        }
        if !removed { chunk /= 2 }
    }
    return best
}

@Suite(.serialized) struct WholeSystemTests {
    static let ciSeeds: [UInt64] = [1, 2, 3, 4, 5, 6]

    static var seeds: [UInt64] {
        if let n = ProcessInfo.processInfo.environment["TILL_SIM_SEEDS"].flatMap(UInt64.init), n > 0 { return Array(1...n) }
        return ciSeeds
    }
    static var steps: Int { ProcessInfo.processInfo.environment["TILL_SIM_STEPS"].flatMap(Int.init) ?? 140 }

    @Test func moneyGuaranteesHoldUnderRandomCashiersAndFaults() async throws {
        let started = Date()
        var totalSteps = 0
        var shrinkBudget = Double(ProcessInfo.processInfo.environment["TILL_SIM_SHRINK_SECONDS"] ?? "") ?? 60
        for seed in WholeSystemTests.seeds {
            let steps = generateSteps(seed: seed, count: WholeSystemTests.steps)
            totalSteps += steps.count
            let run = SystemRun(seed: seed)
            let violations = try await run.run(steps)
            print("whole-system seed \(seed): " + run.stats.filter { !$0.key.hasPrefix("final-") }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
            if !violations.isEmpty {
                // Shrink the first failure only, within a minute, so a failing CI run still ends in time.
                let shrunk = shrinkBudget > 0 ? await shrink(seed: seed, steps, budgetSeconds: shrinkBudget) : steps
                shrinkBudget = 0
                Issue.record("""
                    seed \(seed): \(violations.joined(separator: "; "))
                    shrunk to \(shrunk.count) of \(steps.count) steps (replay: TILL_SIM_SEEDS is the range 1...N; this list is the minimal failing run):
                    \(shrunk.map(\.description).joined(separator: ", "))
                    """)
            }
        }
        print("whole-system: \(WholeSystemTests.seeds.count) seeds, \(totalSteps) steps, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}

let testCaller = Caller(callback: "interapp-callback", merchantKey: "MK-system-test", appId: "com.example.till.system")
