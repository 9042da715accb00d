import Foundation
import TillIO
import TillProtocol
#if canImport(Glibc)
import Glibc
#endif

// Answers from the terminal: which journal entry each settles and how (the rules are `AnswerRules`, in TillModel).
extension TillController {
    func handle(_ e: TransportEvent) async {
        switch e {
        case .answer(let a): await handleAnswer(a)
        case .lost(_, let reason):
            hub.emit(.transportProblem(reason))
            if let l = life, !l.isSettled { await feed(l.requestId) { $0.lost(reason, book: $1, now: $2) } }
        case .rejected(let file, let reason): hub.emit(.rejectedAnswer(file: file, reason: reason))
        case .problem(let p): hub.emit(.transportProblem(p))
        case .ready(let r): hub.emit(.transportReady(r))
        }
    }

    /// Every answer goes to the desk (`AnswerDesk`), with the life in flight; what it asks is done here.
    func handleAnswer(_ a: IncomingAnswer) async {
        guard !killed else { return }
        CrashHook.hit("received", armed: life.map { !$0.isSettled && $0.hooks } ?? false)
        let effects = desk().take(a, flight: &life)
        await run(effects, answer: a)
    }
}
