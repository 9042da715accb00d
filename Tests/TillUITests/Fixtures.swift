import TillModel
import TillProtocol
@testable import TillUI

/// 2026-11-22 10:00:00 UTC.
let fixedNow: Int64 = 1_795_341_600_000

func response(_ query: String) -> CallbackResponse {
    try! CallbackResponse.decode("interapp-callback://result?" + query)
}

let approvedSaleResponse = response("status=success&message=Transaction successful.&action=sale&clientTransactionId=till-0001&amount=1250&tipAmount=125&verificationMethod=CONTACTLESS&rrn=123456789012&cardType=Visa&accountNumber=478212******7417&referenceNumber=654321&authorisationCode=A1B2C3&tid=16001184&orderCode=1234567890123456&shortOrderCode=1234567890&installments=0&transactionDate=2026-11-22T11:00:00.0000000%2B01:00&transactionId=6f1c2a4e-0d0b-4d3c-9a53-2f1f0a1b2c3d")
let declinedSaleResponse = response("status=fail&message=(-12) TRANSACTION_DECLINED_BY_SERVER&action=sale&amount=666&tipAmount=0&cardType=Visa Credit&accountNumber=478212******7417&tid=16001184&verificationMethod=CHIP")

func entry(_ id: Int64, _ action: Action = .sale, cents: Int? = 1250, tip: Int? = nil, state: EntryState = .approved,
           response r: CallbackResponse? = nil, note: String? = nil, at: Int64 = fixedNow) -> JournalEntry {
    // As the journal keeps it: the figures an answer states replace the ones asked (an abort's answer states none).
    let figures = r?.action == .abort ? nil : r
    return JournalEntry(id: id, requestId: "req-\(id)", action: action, clientTransactionId: "till-\(id)",
                 amount: figures?.amount ?? cents.map { Money(cents: $0) },
                 tipAmount: figures?.tipAmount ?? tip.map { Money(cents: $0) }, requestURL: "vivapayclient://pay/v1?action=\(action.rawValue)",
                 state: state, createdAtMs: at, updatedAtMs: at, response: r, batchId: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6",
                 batchName: "Morning", note: note)
}

let openBatch = BatchInfo(id: "7885F4F1-59CA-42C2-81BB-6DB48AA138A6", name: "Morning", openedAtMs: fixedNow - 3 * 3_600_000 - 25 * 60_000, isOpen: true)

/// A state as it is after start-up with nothing to recover.
func readyState(size: Size = Size(width: 80, height: 24), keymap: Keymap = .standard) -> AppState {
    var s = AppState(keymap: keymap, size: size, nowMs: fixedNow, tzOffsetMinutes: 60, transport: "simulator")
    _ = initialCommands(&s)
    _ = update(&s, .unresolvedLoaded([], recovered: true))
    _ = update(&s, .batchLoaded(openBatch))
    s.notice = nil
    return s
}

@discardableResult
func press(_ s: inout AppState, _ keys: Key...) -> [Command] {
    var all: [Command] = []
    for k in keys { all += update(&s, .key(k)) }
    return all
}

@discardableResult
func type(_ s: inout AppState, _ text: String) -> [Command] {
    var all: [Command] = []
    for c in text { all += update(&s, .key(.char(c))) }
    return all
}

/// A running report of a small shift (figures as the journal would give them).
func sampleReport(kind: Report.Kind = .running) -> Report {
    let t0 = openBatch.openedAtMs!
    let buckets = [
        ReportBucket(action: .sale, state: .approved, cardType: "VISA", verificationMethod: "CONTACTLESS", count: 3, amountCents: 4250,
                     tipCents: 425, tippedCount: 2, firstAtMs: t0 + 60_000, lastAtMs: t0 + 3_600_000),
        ReportBucket(action: .sale, state: .approved, cardType: "Debit Mastercard", verificationMethod: "CHIP", count: 1, amountCents: 1250,
                     tipCents: 0, tippedCount: 0, firstAtMs: t0 + 120_000, lastAtMs: t0 + 120_000),
        ReportBucket(action: .cancel, state: .approved, cardType: "VISA", verificationMethod: "", count: 1, amountCents: 500,
                     tipCents: 0, tippedCount: 0, firstAtMs: t0 + 7_000_000, lastAtMs: t0 + 7_000_000),
        ReportBucket(action: .sale, state: .declined, cardType: "VISA", verificationMethod: "CHIP", count: 1, amountCents: 666,
                     tipCents: 0, tippedCount: 0, firstAtMs: t0 + 200_000, lastAtMs: t0 + 200_000),
        ReportBucket(action: .sale, state: .unknown, cardType: "", verificationMethod: "", count: 1, amountCents: 909,
                     tipCents: 0, tippedCount: 0, firstAtMs: t0 + 300_000, lastAtMs: t0 + 300_000),
    ]
    return Report(kind: kind, batch: openBatch, closedAtMs: kind == .closing ? fixedNow : nil,
                  closedHow: kind == .closing ? .byTill : nil, generatedAtMs: fixedNow, buckets: buckets)
}

/// Enter on Refund or Capture: the journal look-up it asks for (`findPayment`) is answered with `entries` (none: the
/// journal knows no such payment). Returns what the answer asks for (a box opened: nothing).
@discardableResult
func enterFinding(_ s: inout AppState, _ entries: [JournalEntry] = []) -> [Command] {
    let cmds = press(&s, .enter)
    guard cmds.count == 1, case .findPayment(let screen, let finder)? = cmds.first else { return cmds }
    return update(&s, .paymentsFound(screen: screen, finder: finder, entries: entries))
}
