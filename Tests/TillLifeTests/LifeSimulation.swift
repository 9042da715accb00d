import TillLife
import TillModel
import TillProtocol
import struct TillSimulator.SplitMix64

/// The whole life of payments on a virtual clock (as FoundationDB's simulation and TigerBeetle's VOPR do): a cashier
/// starts sales, aborts and stops waiting; the real `PaymentLife` and `AnswerDesk` take every event; a terminal that
/// keeps its own ledger (`VirtualTerminal`) reads requests late or never and answers at every kind of moment; till is
/// killed at any effect and restarted (answers it had not acknowledged come again, recovery asks the terminal); a
/// journal write fails now and then; the wall clock jumps. No real sleep: a run of a million events takes seconds.
///
/// After every event the ledger and the journal are compared (`check`): one charge, one row, for the amount charged;
/// nothing counted that the terminal did not charge; and never a final "not charged" for money that moved, once every
/// answer about it has reached till. At the end every answer is delivered, till restarts, and recovery runs: every
/// charge is then counted or flagged for a person.
struct LifeSimulation {
    enum Fault: String, CaseIterable, Hashable, Comparable {
        /// till SIGKILLed at any effect, restarted later.
        case kill
        /// The cashier presses Esc while the terminal works.
        case abort
        /// The cashier stops waiting (the payment goes to Unresolved).
        case stopWaiting
        /// The wall clock steps 49 h forward, or back.
        case clockJump
        /// A journal write fails (a full disk), now and then.
        case journalFailure
        /// The transport is a pipe bridge: nothing can be taken back once handed over, and a killed till's bridge may
        /// read a request before the next start stops it. (Else a file drop: an unclaimed request can be withdrawn.)
        case pipe
        /// A headless command: the process ends when its command has its outcome; answers after it wait for the next.
        case exitAfterCommand
        /// The transport refuses a request now and then (not sent, or maybe sent).
        case handOverFails
        /// The terminal reads a request only after till gave up on it.
        case slowRead
        /// The cashier refunds part of a sale now and then (by its STAN; a refund's answer names no payment).
        case refunds
        /// Some payments are pre-auths (a hold on the card, answered and looked up as a sale is).
        case preAuths
        static func < (a: Fault, b: Fault) -> Bool { a.rawValue < b.rawValue }
    }

    struct Options: Hashable, CustomStringConvertible {
        var seed: UInt64
        var payments: Int
        var manners: [VirtualTerminal.Manner]
        var faults: Set<Fault>
        var description: String {
            "seed \(seed), \(payments) payments, manners [\(manners.map { "\($0)" }.joined(separator: ","))], "
                + "faults [\(faults.sorted().map(\.rawValue).joined(separator: ","))]"
        }
        static func all(seed: UInt64, payments: Int) -> Options {
            Options(seed: seed, payments: payments, manners: VirtualTerminal.Manner.allCases, faults: Set(Fault.allCases))
        }
    }

    enum Event {
        case cashier
        case read(String)
        case card(String, String)
        case deliver(Int)
        case timer(Int)
        case abort(String)
        case stop(String)
        case restart
        case jump(Int64)
    }

    struct Mail {
        var text: String
        var hint: String?
        var ctid: String?
        var acked = false
        var arrived = false
    }

    let options: Options
    var rng: SplitMix64
    var terminal: VirtualTerminal
    var book = MemoryBook()
    var clock: Int64 = 0
    var offset: Int64 = 1_800_000_000_000
    var wall: Int64 { clock + offset }
    var queue = EventQueue()
    var alive = true
    var life: PaymentLife?
    var timerGeneration = 0
    var mail: [Mail] = []
    /// Answers naming each payment that are still on their way (not acknowledged).
    var undelivered: [String: Int] = [:]
    /// Each payment's entry, by its client transaction id.
    var payments: [String: Int64] = [:]
    /// Payments an answer about which was acknowledged since the last check.
    var answered = Set<Int64>()
    /// Payments whose entry says "not charged" (declined, aborted, resolved, duplicate).
    var notCharged = Set<Int64>()
    var paymentIds = Set<Int64>()
    /// The entry that counts each terminal transaction (by transaction id).
    var counted: [String: Int64] = [:]
    var lastChecked: [Int] = []
    /// Requests handed over that the terminal has not read (their URL).
    var unread: [String: String] = [:]
    var started = 0
    var recovering: [Int64] = []
    var recoveryAsk: (id: Int64, ctid: String)?
    var reachable = true
    var peerOutlived = false
    var idCounter = 0
    /// Events handled: every scheduled event (a cashier's action, the terminal reading a request or a card, an answer
    /// arriving, a timer, a restart, a clock step; not the cashier's idle retries while till is busy) and every
    /// transport result fed back to the life (handed over or not, taken back or not).
    var events = 0
    /// Queue events handled, and of them the cashier's retries while till was busy.
    var queued = 0, retries = 0
    var failure: String?
    var trail: [String] = []
    let waits = PaymentLife.Waits(answerMs: 90_000, abortMs: 5_000, lookUpMs: 15_000, unnamedGraceMs: 3_000)
    let caller = Caller(callback: "till-sim", merchantKey: "MK", appId: "till.sim")

    init(_ options: Options) {
        self.options = options
        var seeder = SplitMix64(state: options.seed)
        rng = SplitMix64(state: seeder.next())
        terminal = VirtualTerminal(rng: SplitMix64(state: seeder.next()), manners: options.manners)
    }

    mutating func pick(_ n: Int) -> Int { Int(rng.next() % UInt64(max(1, n))) }
    mutating func chance(_ fault: Fault, _ oneIn: Int) -> Bool { !calm && options.faults.contains(fault) && pick(oneIn) == 0 }
    /// The end of a run: nothing fails any more, so that what the journal says is what the rules make of it.
    var calm = false
    mutating func newId() -> String { idCounter += 1; return "r\(options.seed)-\(idCounter)" }

    func desk() -> AnswerDesk<MemoryBook> {
        AnswerDesk(book: book, now: wall, anotherTillSending: { false }, newRequestId: { "" })
    }

    mutating func note(_ s: String) {
        trail.append("t=\(clock) \(s)")
        if trail.count > 60 { trail.removeFirst(trail.count - 60) }
    }

    // MARK: running

    /// Runs to the end; returns the failure (nil: every check held).
    mutating func run() -> String? {
        queue.push(0, .cashier)
        while failure == nil, let (at, event) = queue.pop() {
            clock = max(clock, at)
            queued += 1
            events += 1
            handle(event)
            if failure == nil { check(final: false) }
        }
        if failure == nil { finish() }
        return failure
    }

    mutating func handle(_ event: Event) {
        switch event {
        case .cashier: cashier()
        case .read(let id):
            guard let url = unread.removeValue(forKey: id) else { return }
            note("terminal reads \(id)")
            let (answers, cardAt) = terminal.read(url, requestId: id, now: clock)
            post(answers)
            if let cardAt, let ctid = (try? TerminalRequest.parse(url))?.request.clientTransactionId {
                queue.push(cardAt, .card(ctid, id))
            }
        case .card(let ctid, let id):
            note("card of \(ctid) read")
            post(terminal.cardRead(ctid, requestId: id, now: clock))
        case .deliver(let i):
            mail[i].arrived = true
            guard alive, !mail[i].acked else { return }
            take(i)
        case .timer(let generation):
            guard alive, generation == timerGeneration, let id = life?.requestId else { return }
            feed(id) { $0.timeReached(book: $1, now: $2) }
        case .abort(let id):
            guard alive, let l = life, l.requestId == id, !l.isSettled else { return }
            note("cashier aborts \(id)")
            let (b, rid, now) = (book, newId(), wall)
            let (effects, _) = life!.askAbort(book: b, requestId: rid, now: now)
            perform(effects)
        case .stop(let id):
            guard alive, let l = life, l.requestId == id, !l.isSettled else { return }
            note("cashier stops waiting for \(id)")
            feed(id) { $0.stopWaiting(book: $1, now: $2) }
        case .restart:
            restart()
        case .jump(let by):
            note("clock jumps \(by / 3_600_000) h")
            offset += by
            // The driver sees the wall clock step against the monotonic one, and tells the life.
            if alive { life?.clockStepped(by: by) }
            armTimer()
        }
    }

    mutating func post(_ answers: [VirtualTerminal.Answer]) {
        for a in answers {
            mail.append(Mail(text: a.text, hint: a.hint, ctid: a.ctid))
            if let c = a.ctid { undelivered[c, default: 0] += 1 }
            queue.push(max(a.at, clock), .deliver(mail.count - 1))
        }
    }

    mutating func cashier() {
        guard started < options.payments else { return }
        guard alive, life == nil, recovering.isEmpty, recoveryAsk == nil else {
            retries += 1
            events -= 1
            queue.push(clock + 500 + Int64(pick(5_000)), .cashier)
            return
        }
        queue.push(clock + 100 + Int64(pick(3_000)), .cashier)
        if chance(.refunds, 5), takeFrom(capture: false) { return }
        if chance(.preAuths, 4), takeFrom(capture: true) { return }
        started += 1
        let ctid = "p\(options.seed)-\(started)"
        let amount = Money(cents: 1 + pick(9_999))
        let payment = chance(.preAuths, 4) ? Request.preAuth(PreAuthRequest(amount: amount, clientTransactionId: ctid))
            : Request.sale(SaleRequest(amount: amount, clientTransactionId: ctid))
        let request = TerminalRequest(caller: caller, request: payment)
        if chance(.journalFailure, 40) { book.failNextWrite = true }
        let entry: JournalEntry
        do {
            entry = try book.insertPending(requestId: newId(), request: request, batch: book.open, parentId: nil, nowMs: wall)
        } catch {
            note("sale \(ctid) not journaled, not sent")
            return
        }
        note("\(payment.action.rawValue) \(ctid) \(entry.amount?.description ?? "") journaled as entry \(entry.id)")
        payments[ctid] = entry.id
        paymentIds.insert(entry.id)
        var effects: [LifeEffect] = []
        let now = wall
        life = PaymentLife(entry: entry, url: request.url, hooks: true, caller: caller, waits: waits, now: now, effects: &effects)
        if chance(.abort, 5) { queue.push(clock + Int64(pick(5_000)), .abort(entry.requestId)) }
        if chance(.stopWaiting, 12) { queue.push(clock + Int64(pick(20_000)), .stop(entry.requestId)) }
        if chance(.clockJump, 30) { queue.push(clock + Int64(pick(10_000)), .jump(pick(2) == 0 ? 49 * 3_600_000 : -49 * 3_600_000)) }
        perform(effects)
    }

    /// A refund of part of what is left of a sale the journal counts, or the capture of a pre-auth it counts (in full
    /// or in part, once), as a cashier sends one from the journal (never while another one's outcome is not known: the
    /// controller asks first then, and this cashier does not confirm). False: nothing to refund or capture now.
    mutating func takeFrom(capture: Bool) -> Bool {
        let (of, by): (Action, Action) = capture ? (.preAuth, .capturePreAuth) : (.sale, .cancel)
        let counted = book.entries.filter { $0.action == of && $0.state == .approved && $0.response?.referenceNumber != nil }
        guard !counted.isEmpty, !book.entries.contains(where: { $0.action == by && ($0.state.awaitsTerminal || $0.state == .review) }) else {
            return false
        }
        let original = counted[pick(counted.count)]
        let stan = original.response?.referenceNumber ?? ""
        let earlier = book.entries.filter { e in
            e.action == by && e.state == .approved && (try? TerminalRequest.parse(e.requestURL).request)
                .flatMap { if case .cancel(let r) = $0 { return r.finder.referenceNumber } else if case .capturePreAuth(let r) = $0 { return r.finder.referenceNumber } else { return nil } } == stan
        }
        let left = capture && !earlier.isEmpty ? 0 : (original.amount?.cents ?? 0) - earlier.reduce(0) { $0 + ($1.amount?.cents ?? 0) }
        guard left > 0 else { return false }
        let finder = FinderRequest(amount: Money(cents: 1 + pick(left)), finder: TransactionFinder(referenceNumber: stan))
        let request = TerminalRequest(caller: caller, request: capture ? .capturePreAuth(finder) : .cancel(finder))
        let id = newId()
        guard let entry = try? book.insertPending(requestId: id, request: request, batch: book.open, parentId: nil, nowMs: wall) else { return true }
        note("\(by.rawValue) of STAN \(stan) \(entry.amount?.description ?? "") journaled as entry \(entry.id)")
        payments["finder:" + id] = entry.id
        paymentIds.insert(entry.id)
        var effects: [LifeEffect] = []
        let now = wall
        life = PaymentLife(entry: entry, url: request.url, hooks: true, caller: caller, waits: waits, now: now, effects: &effects)
        perform(effects)
        return true
    }

    /// Takes mail `i` through the desk, as the controller's `handleAnswer` does.
    mutating func take(_ i: Int) {
        note("answer \(i) arrives: \(mail[i].text.prefix(110))")
        if chance(.journalFailure, 30) { book.failNextWrite = true }
        // A pipe's answers are lines: no file name says whose they are. A file drop's answer is filed under its request.
        let hint = options.faults.contains(.pipe) ? nil : mail[i].hint
        let (d, answer) = (desk(), IncomingAnswer(text: mail[i].text, receipt: nil, requestIdHint: hint))
        let effects = d.take(answer, flight: &life)
        book.failNextWrite = false
        perform(effects, answer: i)
    }

    mutating func feed(_ requestId: String, _ event: (inout PaymentLife, MemoryBook, Int64) -> [LifeEffect]) {
        guard alive, life?.requestId == requestId else { return }
        if chance(.journalFailure, 60) { book.failNextWrite = true }
        let (b, now) = (book, wall)
        let effects = event(&life!, b, now)
        book.failNextWrite = false
        perform(effects)
    }

    /// Performs the life's effects as the controller's driver does; till may be killed before any of them.
    mutating func perform(_ effects: [LifeEffect], answer: Int? = nil) {
        for effect in effects {
            guard alive else { return }
            if chance(.kill, 150) { kill(); return }
            switch effect {
            case .send(let id, let url, let role):
                if chance(.handOverFails, 60) {
                    let error: TransportError = pick(2) == 0 ? .notSent("the bridge is not running") : .maybeSent("the pipe broke")
                    if case .maybeSent = error { unread[id] = url; queue.push(clock + Int64(pick(500)), .read(id)) }
                    note("\(id) not handed over: \(error)")
                    events += 1
                    feed(life?.requestId ?? "") { $0.notHandedOver(role, error, book: $1, now: $2) }
                    continue
                }
                unread[id] = url
                let delay = chance(.slowRead, 25) ? 95_000 + Int64(pick(60_000)) : 5 + Int64(pick(300))
                queue.push(clock + delay, .read(id))
                note("\(id) handed over")
                events += 1
                feed(life?.requestId ?? "") { $0.handedOver(role, book: $1, now: $2) }
            case .acknowledge, .reject:
                if let answer, !mail[answer].acked {
                    mail[answer].acked = true
                    if let c = mail[answer].ctid, let id = payments[c] { answered.insert(id) }
                    if let c = mail[answer].ctid { undelivered[c, default: 1] -= 1 }
                }
            case .leave: break
            case .withdraw(let id):
                if !options.faults.contains(.pipe) { unread[id] = nil }
            case .giveUp(let id):
                let withdrawn = !options.faults.contains(.pipe) && unread.removeValue(forKey: id) != nil
                note("gave up on \(id); withdrawn: \(withdrawn)")
                events += 1
                feed(id) { $0.gaveUp(withdrawn: withdrawn, book: $1, now: $2) }
            case .settled(let outcome):
                note("settled: \(Self.describe(outcome))")
                let wasRecovery = recoveryAsk
                life = nil
                if let ask = wasRecovery {
                    recoveryAsk = nil
                    var out: [LifeEffect] = []
                            reachable = desk().recoverAfterLookUp(ask.id, ctid: ask.ctid, lookUp: outcome, peerOutlived: peerOutlived, &out)
                    perform(out)
                    recoverNext()
                } else if chance(.exitAfterCommand, 3) {
                    note("the command ends; the process exits")
                    alive = false
                    timerGeneration += 1
                    queue.push(clock + 50 + Int64(pick(10_000)), .restart)
                }
            case .emit, .abortEnded, .recovered, .changed, .crashPoint: break
            }
        }
        armTimer()
    }

    mutating func armTimer() {
        timerGeneration += 1
        guard alive, let deadline = life?.nextDeadline else { return }
        queue.push(max(clock, deadline - offset), .timer(timerGeneration))
    }

    mutating func kill() {
        note("KILLED")
        alive = false
        life = nil
        recoveryAsk = nil
        recovering = []
        timerGeneration += 1
        queue.push(clock + 100 + Int64(pick(20_000)), .restart)
    }

    /// A new till process: the previous bridge stopped (pipe) or unclaimed requests withdrawn (file drop), answers
    /// that waited handled first, then recovery asks the terminal about every entry left waiting.
    mutating func restart() {
        guard !alive else { return }
        note("till starts")
        alive = true
        life = nil
        if options.faults.contains(.pipe) {
            // The next start stops the bridge a dead till left running: what it had not read, it never reads.
            peerOutlived = !unread.isEmpty
            unread.removeAll()
        } else {
            peerOutlived = false
            for id in unread.keys.sorted() {
                unread[id] = nil
                var out: [LifeEffect] = []
                    desk().recoverWithdrawn(requestId: id, &out)
                perform(out)
            }
        }
        for i in mail.indices where mail[i].arrived && !mail[i].acked {
            take(i)
            guard alive else { return }
        }
        reachable = true
        recovering = book.awaiting().map(\.id)
        recoverNext()
    }

    mutating func recoverNext() {
        while alive, life == nil, recoveryAsk == nil, !recovering.isEmpty {
            let id = recovering.removeFirst()
            guard let fresh = try? book.entry(id: id), fresh.state.awaitsTerminal else { continue }
            var out: [LifeEffect] = []
            let ask = desk().recoverWithoutAsking(fresh, reachable: reachable, &out)
            perform(out)
            guard alive, let ctid = ask else { continue }
            let request = TerminalRequest(caller: caller, request: .transactionDetails(DetailsRequest(clientTransactionId: ctid)))
            guard let entry = try? book.insertPending(requestId: newId(), request: request, batch: book.open, parentId: nil, nowMs: wall) else {
                continue
            }
            recoveryAsk = (id, ctid)
            var effects: [LifeEffect] = []
            var w = waits
            w.answerMs = waits.lookUpMs
            let now = wall
            life = PaymentLife(entry: entry, url: request.url, hooks: false, caller: caller, waits: w, now: now, effects: &effects)
            perform(effects)
        }
    }

    /// Every answer delivered, till started again, recovery done: the final comparison.
    mutating func finish() {
        calm = true
        for round in 0..<4 {
            if !alive { restart() }
            while let (at, event) = queue.pop() {
                clock = max(clock, at)
                handle(event)
                if !alive { restart() }
            }
            if round < 3, alive, life == nil {
                // Once more: a start with nothing left to deliver, so that recovery settles what still waits.
                alive = false
                restart()
            }
        }
        check(final: true)
    }

    // MARK: checks

    mutating func fail(_ why: String) {
        if failure == nil { failure = why + "\n  last steps:\n    " + trail.suffix(25).joined(separator: "\n    ") }
    }

    /// The journal against the terminal's ledger.
    static let notCharged: Set<EntryState> = [.declined, .aborted, .resolved, .duplicate]

    mutating func check(final: Bool) {
        // Only what changed is looked at again: the entries written since the last check, or every payment when till
        // started, stopped, or began or ended a wait (a payment may have become "every answer in").
        let changed = book.takeChanged()
        let global = [alive ? 1 : 0, life == nil ? 1 : 0, recoveryAsk == nil ? 1 : 0, recovering.count]
        let all = final || global != lastChecked
        lastChecked = global
        let touched = answered
        answered.removeAll(keepingCapacity: true)
        if !all && changed.isEmpty && touched.isEmpty { return }
        // Of the entries not written since, only those that say "not charged" can have become wrong.
        let ids = final ? Set(payments.values) : changed.union(touched).filter { self.paymentIds.contains($0) }.union(all ? notCharged : [])
        for id in ids.sorted() {
            guard let e = try? book.entry(id: id) else { continue }
            if Self.notCharged.contains(e.state) { notCharged.insert(id) } else { notCharged.remove(id) }
            if e.action == .cancel || e.action == .capturePreAuth {
                checkTaken(e, final: final)
                if failure != nil { return }
                continue
            }
            guard let ctid = e.clientTransactionId else { continue }
            let truth = terminal.ledger[ctid]
            if e.state == .approved {
                if let t = book.transactionId(of: e.id) {
                    if let other = counted[t], other != e.id { return fail("one charge, two rows: transaction \(t) is counted by entries \(other) and \(e.id)") }
                    counted[t] = e.id
                }
                guard let truth, truth.fate == .charged else {
                    return fail("entry \(e.id) (\(ctid)) is counted as charged; the terminal's ledger says \(truth.map { "\($0.fate)" } ?? "it never saw it")")
                }
                if e.amount != truth.amount { return fail("entry \(e.id) counts \(e.amount?.description ?? "nil"); the terminal charged \(truth.amount)") }
            }
            guard let truth, truth.fate == .charged else { continue }
            if final && e.state != .approved && e.state != .review {
                // Every answer came, and the last start asked the terminal about whatever was still open.
                return fail("after the last start, the terminal's charge \(ctid) \(truth.amount) is neither counted nor for review: "
                            + "entry \(e.id) says \(e.state.rawValue) (\(e.note ?? ""))")
            }
            guard Self.notCharged.contains(e.state) else { continue }
            // The terminal charged it and till has it as not charged: wrong once every answer about it reached a till
            // that is running and waits for nothing.
            if final || ((undelivered[ctid] ?? 0) == 0 && alive && life == nil && recoveryAsk == nil && recovering.isEmpty) {
                return fail("the terminal charged \(ctid) \(truth.amount); entry \(e.id) says \(e.state.rawValue) (\(e.note ?? "")), "
                            + "and no answer about it is still on its way")
            }
        }
    }

    /// A refund (capture) entry against the terminal's refunds (captures): counted only for one the terminal made,
    /// for its amount, once; never "not charged" for one it made once every answer about it has come; counted or
    /// flagged at the end.
    mutating func checkTaken(_ e: JournalEntry, final: Bool) {
        let what = e.action == .cancel ? "refund" : "capture"
        let made = e.action == .cancel ? terminal.refunds : terminal.captures
        let key = "finder:" + e.requestId
        let mine = made[e.requestId]
        if e.state == .approved {
            guard let t = book.transactionId(of: e.id), let truth = made.values.first(where: { $0.transactionId == t }) else {
                return fail("\(what) entry \(e.id) is counted; the terminal made no \(what) \(book.transactionId(of: e.id) ?? "(none named)")")
            }
            if let other = counted[t], other != e.id { return fail("one \(what), two rows: \(t) is counted by entries \(other) and \(e.id)") }
            counted[t] = e.id
            if e.amount != truth.amount { return fail("\(what) entry \(e.id) counts \(e.amount?.description ?? "nil"); the terminal took \(truth.amount)") }
        }
        guard let mine else { return }
        // A refund or capture names no payment the terminal can be asked about (no client transaction id): one whose
        // answer never came stays unknown, for a person, and that is what it must say.
        if final && e.state != .approved && e.state != .review && e.state != .unknown {
            return fail("after the last start, the terminal's \(what) \(mine.transactionId) \(mine.amount) is neither counted nor flagged: "
                        + "entry \(e.id) says \(e.state.rawValue) (\(e.note ?? ""))")
        }
        guard Self.notCharged.contains(e.state) else { return }
        if final || ((undelivered[key] ?? 0) == 0 && alive && life == nil && recoveryAsk == nil && recovering.isEmpty) {
            return fail("the terminal made the \(what) \(mine.amount) (\(mine.transactionId)); entry \(e.id) says \(e.state.rawValue) (\(e.note ?? "")), "
                        + "and no answer about it is still on its way")
        }
    }

    static func describe(_ o: ActionOutcome) -> String {
        switch o {
        case .answered(let e): return "answered \(e.id) \(e.state.rawValue)"
        case .unknown(let e): return "unknown \(e.id)"
        case .transportError(let e, let m): return "transport error \(e?.id ?? 0): \(m)"
        case .journalFailed(let e, _): return "journal failed \(e?.id ?? 0)"
        default: return "\(o)"
        }
    }
}

/// A min-heap of events by time, first in first out at equal times.
struct EventQueue {
    private var heap: [(at: Int64, seq: Int, event: LifeSimulation.Event)] = []
    private var seq = 0
    var isEmpty: Bool { heap.isEmpty }

    private func less(_ a: Int, _ b: Int) -> Bool { heap[a].at != heap[b].at ? heap[a].at < heap[b].at : heap[a].seq < heap[b].seq }

    mutating func push(_ at: Int64, _ event: LifeSimulation.Event) {
        seq += 1
        heap.append((at, seq, event))
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) / 2
            guard less(i, p) else { break }
            heap.swapAt(i, p)
            i = p
        }
    }

    mutating func pop() -> (Int64, LifeSimulation.Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let top = heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, less(l, m) { m = l }
            if r < heap.count, less(r, m) { m = r }
            if m == i { break }
            heap.swapAt(i, m)
            i = m
        }
        return (top.at, top.event)
    }
}
