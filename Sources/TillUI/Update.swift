import TillProtocol
import TillModel

/// The caller used only to validate a request in the UI; the service fills in the real one.
let validationCaller = Caller(callback: "till", merchantKey: "till", appId: "till")

/// The commands to run at start: recover unfinished transactions, learn the batch.
public func initialCommands(_ state: inout AppState) -> [Command] {
    state.unresolved.recovering = true
    state.unresolved.atStart = true
    state.screen = .unresolved
    state.storeSyncReadAtMs = state.nowMs
    return [.recover, .loadBatch, .loadStoreSync]
}

/// Applies one message to the state and returns the commands it asks for. Pure: no I/O, no clock.
public func update(_ state: inout AppState, _ msg: Msg) -> [Command] {
    let (screen, serial) = (state.screen, state.noticeSerial)
    let commands = apply(&state, msg)
    // A notice said on a screen the cashier has left speaks of that screen ("type the sale's STAN here" under the Batch
    // screen): it goes. One said by this very message stays (the screen it was said for is the one shown), and so does
    // one about the payment in flight, which is no screen's.
    if state.screen != screen, state.noticeSerial == serial, !state.noticeEndsWithFlight { clearNotice(&state) }
    closeBoxNoLongerTrue(&state)
    if let k = state.noticeAboutKept, k.screen != state.screen || k.texts != state.form.fields.map(\.text) { clearNotice(&state) }
    return commands
}

/// A box that asks about something no longer true closes, saying why: the quit box of a payment that was answered
/// meanwhile, the "Earlier payment UNKNOWN" box of payments found settled (the next Enter asks again as it now must).
func closeBoxNoLongerTrue(_ state: inout AppState) {
    guard case .confirm(let c)? = state.overlay, let standing = c.standsWhile else { return }
    switch standing {
    case .paymentInFlight:
        guard state.pending == nil else { return }
        state.overlay = nil
        setNotice(&state, "The payment was answered meanwhile: nothing waits now.")
    case .unknownPayments(let ids):
        guard !state.unresolved.entries.contains(where: { ids.contains($0.id) && $0.mayHaveCharged }) else { return }
        state.overlay = nil
        setNotice(&state, "The earlier payment is settled now (see the result): check it, then Enter to go on.")
    case .unresolvedEntry(let id):
        guard !state.unresolved.entries.contains(where: { $0.id == id }) else { return }
        state.overlay = nil
        setNotice(&state, "That payment was settled meanwhile: nothing to resolve.")
    }
}

func apply(_ state: inout AppState, _ msg: Msg) -> [Command] {
    switch msg {
    case .key(let key):
        return handleKey(&state, key)
    case .tick(let now):
        state.nowMs = now
        var cmds = askAgainIfDue(&state)
        if state.unresolved.waitingOnAnotherTill, !state.unresolved.recovering { cmds.append(.loadUnresolved) }
        // The store's cell: read again on a tick at least 15 s after the last reading (a small file and one indexed
        // read): each minute when idle.
        if now - state.storeSyncReadAtMs >= 15_000 { state.storeSyncReadAtMs = now; cmds.append(.loadStoreSync) }
        return cmds
    case .storeSyncLoaded(let s):
        state.storeSync = s
        return []
    case .resize(let size):
        state.size = size
        JournalScreen.clampJournal(&state)
        if Layout(size).fits, state.keysNotTaken > 0 {
            let n = state.keysNotTaken
            state.keysNotTaken = 0
            setNotice(&state, "\(n) key\(n == 1 ? "" : "s") typed while the window was too small \(n == 1 ? "was" : "were") not taken: type again.",
                      error: true)
        }
        return []
    case .event(let e):
        return handleEvent(&state, e)
    case .performed(let outcome, let summary):
        return settle(&state, outcome, summary: summary)
    case .aborted(let r):
        switch r {
        case .nothingInFlight: setNotice(&state, "Nothing in flight to abort.")
        case .answered(let o, _):
            switch o {
            case .aborted: setNotice(&state, "Abort accepted by the terminal.")
            case .nothingToAbort, .other:
                // The payment goes on (its own answer comes): the pane stops saying "Abort requested…".
                let said = o == .nothingToAbort ? "The terminal had nothing to abort" : "The terminal answered the abort"
                if state.pending != nil {
                    setFlightNotice(&state, said + ": the payment goes on. Wait for its result.")
                    state.pending?.abortRequested = false
                } else { setNotice(&state, said + ".") }
            }
        case .noAnswer:
            setFlightNotice(&state, "Too late to abort: the payment goes on. Wait for its result.", error: true)
            state.pending?.abortRequested = false
        case .transportError(let m):
            setNotice(&state, "Abort could not be sent: " + m, error: true)
            state.pending?.abortRequested = false
        }
        return []
    case .journalLoaded(let entries):
        return JournalScreen.loaded(&state, entries)
    case .batchLoaded(let b):
        state.batch = b
        return [.loadReport(batch: .current, show: false)]
    case .reportLoaded(let r, let show):
        state.batchScreen.runningReport = r
        if show {
            if let r { state.overlay = .report(ReportPanel(report: r)) }
            else { setNotice(&state, "No batch in the journal yet: open one on the Batch screen.", error: true) }
        } else if case .report(var panel)? = state.overlay, let r, r.batchId == panel.report.batchId {
            panel.report = r
            state.overlay = .report(panel)
        }
        return []
    case .paymentsFound(let screen, let finder, let entries):
        return FinderScreen.found(&state, screen, finder, entries)
    case .stoppedWaiting(let error):
        if let error { setNotice(&state, "Could not stop waiting: " + error, error: true) }
        return []
    case .exported(let paths, let error):
        if let error { setNotice(&state, "Export failed: " + error, error: true); return [] }
        if case .report(var panel)? = state.overlay { panel.exported = paths; state.overlay = .report(panel) }
        setNotice(&state, "Exported: " + paths.joined(separator: ", "))
        return []
    case .unresolvedLoaded(let list, let recovered):
        return UnresolvedScreen.loaded(&state, list, recovered: recovered)
    case .resolved(let id, let charged, let error):
        // Named as the cashier knows it (the entry is still on the list it was marked from).
        func named(_ id: Int64) -> String {
            state.unresolved.entries.first { $0.id == id }.map { Format.entryName($0, currency: state.currency, offsetMinutes: state.tzOffsetMinutes) }
                ?? "The payment"
        }
        if let error {
            // Refused: the "charged" it was taken for (a new sale of its amount asks first) is not true either.
            state.foundCharged.removeAll { $0.entry.id == id }
            setNotice(&state, "\(named(id)) not marked: " + error, error: true)
            return []
        }
        setNotice(&state, named(id) + (charged ? " marked charged: it counts." : " marked resolved: not charged."))
        // The result pane's "CHECK THE TERMINAL" about that payment is answered now: it gives way.
        if state.result?.outcome.entry?.id == id { state.result = nil }
        var cmds: [Command] = [.loadUnresolved]
        // Counted now: the running report moves, and a batch command marked done opened or closed the shift.
        if charged { cmds += [.loadBatch, .loadReport(batch: .current, show: false)] }
        cmds += state.screen.component.journalChanged(state)
        return cmds
    }
}

/// Convenience for tests: the functional form.
public func update(_ state: AppState, _ msg: Msg) -> (AppState, [Command]) {
    var s = state
    let c = update(&s, msg)
    return (s, c)
}

func setNotice(_ s: inout AppState, _ text: String, error: Bool = false) {
    s.notice = text
    s.noticeSerial &+= 1
    s.noticeIsError = error
    s.noticeEndsWithFlight = false
    s.noticeAboutKept = nil
}

/// A notice about what the form on screen kept: it goes when that text does (`update`).
func setKeptNotice(_ s: inout AppState, _ text: String) {
    setNotice(&s, text)
    s.noticeAboutKept = KeptText(screen: s.screen, texts: s.form.fields.map(\.text))
}

/// No notice: the line shows the keys again.
func clearNotice(_ s: inout AppState) {
    s.notice = nil
    s.noticeIsError = false
    s.noticeEndsWithFlight = false
    s.noticeAboutKept = nil
}

/// A notice about the request in flight: it is cleared when that request ends (a "Wait: … in flight" left after the
/// approval says something no longer true).
func setFlightNotice(_ s: inout AppState, _ text: String, error: Bool = false) {
    setNotice(&s, text, error: error)
    s.noticeEndsWithFlight = true
}

/// The request in flight ended (answered, unknown, not sent, or seen to end): nothing waits any more, and a notice
/// about it goes with it.
func endFlight(_ s: inout AppState) {
    s.pending = nil
    if s.noticeEndsWithFlight { clearNotice(&s) }
}
