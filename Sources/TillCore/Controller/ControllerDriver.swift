import Foundation
import TillIO
import TillLife
import TillProtocol

// The controller drives the flight's life (`PaymentLife`): it feeds it events with the wall clock's `now`, performs
// the effects it asks for in order (a send, an acknowledgement, a wake-up), and keeps one timer at its `nextDeadline`.
// No rule of state or time is decided here.
extension TillController {
    var waits: PaymentLife.Waits {
        PaymentLife.Waits(answerMs: timeoutMs, abortMs: abortWaitMs, lookUpMs: min(timeoutMs, recoveryTimeoutMs), unnamedGraceMs: unnamedAnswerGraceMs)
    }

    /// The wall clock's time, for the journal and the life; a step of the wall clock against the monotonic one since
    /// the last reading is told to the life first (`clockStepped`), so that its waits keep their length.
    func now() -> Int64 {
        let before = WallClock.monotonicMs(), wall = WallClock.nowMs(), after = WallClock.monotonicMs()
        let offset = wall - after
        // Read between two monotonic readings close together (a thread put aside between the readings would look
        // like a step), a change of more than a second is the wall clock stepping.
        if after - before < 100, let last = clockOffset, abs(offset - last) > 1_000, life != nil {
            life!.clockStepped(by: offset - last)
        }
        if after - before < 100 { clockOffset = offset }
        return wall
    }

    /// The desk every answer goes through, as at now.
    func desk() -> AnswerDesk<Journal> {
        let lock = senderLock
        return AnswerDesk(book: journal, now: now(), anotherTillSending: { lock.isHeldElsewhere() },
                          newRequestId: { UUID().uuidString.lowercased() })
    }

    /// Feeds the life of request `requestId` one event, if it is still the one in flight, and performs what it asks.
    func feed(_ requestId: String, _ event: (inout PaymentLife, Journal, Int64) -> [LifeEffect]) async {
        guard !killed, life?.requestId == requestId else { return }
        let wall = now()
        let effects = event(&life!, journal, wall)
        await run(effects)
    }

    /// Performs the life's effects in order; `answer` is the answer being taken, if any.
    func run(_ effects: [LifeEffect], answer: IncomingAnswer? = nil) async {
        for effect in effects {
            guard !killed else { return }
            switch effect {
            case .send(let id, let url, let role): await send(id, url, role)
            case .acknowledge: if let answer { await transport.acknowledge(answer) }
            case .leave: if let answer { await transport.leave(answer) }
            case .reject(let reason): if let answer { await transport.reject(answer, reason: reason) }
            case .withdraw(let id): _ = await transport.withdrawIfUnclaimed(id: id)
            case .giveUp(let id):
                let withdrawn = await transport.gaveUp(on: id)
                await feed(id) { $0.gaveUp(withdrawn: withdrawn, book: $1, now: $2) }
            case .emit(let e): hub.emit(e)
            case .settled(let outcome):
                hub.emit(.settled(outcome))
                if let w = waiter {
                    waiter = nil
                    // An abort still being handed over when the flight ends: `abort()` hears how it ended now (its
                    // hand-over is fed to no life once this one is collected; it waited for ever).
                    if let r = life?.abortResultIfHandingOver {
                        if let c = abortWaiter { abortWaiter = nil; c.resume(returning: r) } else { abortEnded = r }
                    }
                    life = nil
                    w.resume(returning: outcome)
                }
            case .abortEnded(let r):
                if let c = abortWaiter { abortWaiter = nil; c.resume(returning: r) } else { abortEnded = r }
            case .recovered(let e): reportRecovered(e)
            case .changed(let e):
                lastRecovery.settled.append(e)
                hub.emit(.changed(e))
            case .crashPoint(let name): CrashHook.hit(name, armed: true)
            }
        }
        armTimer()
    }

    /// Hands a request to the transport and tells the life how it went.
    private func send(_ id: String, _ url: String, _ role: SendRole) async {
        guard let owner = life?.requestId else { return }
        do {
            try await transport.send(id: id, url: url)
        } catch {
            await feed(owner) { $0.notHandedOver(role, error, book: $1, now: $2) }
            return
        }
        // The crash point "sent" is right after the hand-over, whether or not the answer already came.
        if role == .request { CrashHook.hit("sent", armed: life?.hooks ?? false) }
        await feed(owner) { $0.handedOver(role, book: $1, now: $2) }
    }

    /// Keeps the one timer at the life's next deadline.
    func armTimer() {
        let next = killed ? nil : life?.nextDeadline
        if timer?.deadlineMs == next { return }
        timer?.task.cancel()
        timer = nil
        guard let next, let owner = life?.requestId else { return }
        let wait = max(0, next - now())
        let task = Task { [weak self] in
            await Pause.sleep(nanoseconds: UInt64(wait) * 1_000_000)
            guard !Task.isCancelled, let self else { return }
            await self.deadlineReached(owner, next)
        }
        timer = (next, task)
    }

    func deadlineReached(_ requestId: String, _ deadline: Int64) async {
        guard timer?.deadlineMs == deadline else { return }
        timer = nil
        // The sleep is on the monotonic clock: its end is the deadline, whatever the wall clock did meanwhile.
        _ = now()
        let due = life?.nextDeadline ?? deadline
        await feed(requestId) { $0.timeReached(book: $1, now: max($2, due)) }
        armTimer()
    }

    /// Test-only: the flight's deadline is reached now, whatever the clock says.
    func timedOut(_ requestId: String) async {
        guard let l = life, l.requestId == requestId else { return }
        let deadline = l.inFlight.deadlineMs
        await feed(requestId) { $0.timeReached(book: $1, now: max($2, deadline)) }
    }
}
