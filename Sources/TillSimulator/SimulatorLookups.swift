import TillProtocol

// The simulated terminal's batches, and what finds an earlier transaction: refund, capture, details.
extension TerminalSimulator {
    // MARK: - Batches

    func batchForTransaction(at t: Int64) -> SimBatch {
        if let b = state.activeBatch { return b }
        return openBatch(name: nil, at: t)
    }

    @discardableResult
    func openBatch(name: String?, at t: Int64) -> SimBatch {
        if state.activeBatch != nil { closeActive(at: t, by: .replaced) }
        state.batchCount += 1
        let b = SimBatch(name: name ?? "Batch \(state.batchCount)", id: uuid(upper: true), openedMs: t)
        state.activeBatch = b
        return b
    }

    func closeActive(at t: Int64, by reason: BatchCloseReason) {
        guard var b = state.activeBatch else { return }
        b.closedMs = t; b.closedBy = reason
        state.closedBatches.append(b)
        state.activeBatch = nil
    }

    func batch(_ r: BatchRequest, now: Int64) -> [(String, String)] {
        switch r.command {
        case .open:
            let b = openBatch(name: r.batchName, at: now)
            return [("status", "success"), ("message", SimMessage.batchOpened), ("action", "batch"), ("command", "open"),
                    ("batchName", b.name), ("batchId", b.id)]
        case .close:
            let fail: [(String, String)] = [("status", "fail"), ("message", SimMessage.batchNotFound), ("action", "batch"),
                                            ("command", "close"), ("batchName", r.batchName ?? ""), ("batchId", r.batchId ?? "")]
            guard let b = state.activeBatch else { return fail }
            if let id = r.batchId, id.uppercased() != b.id.uppercased() { return fail }
            if let name = r.batchName, name != b.name { return fail }
            closeActive(at: now, by: .command)
            return [("status", "success"), ("message", SimMessage.batchClosed), ("action", "batch"), ("command", "close"),
                    ("batchName", b.name), ("batchId", b.id)]
        }
    }

    // MARK: - Finding transactions

    enum Found { case found(Int), notFound, badWindow }

    /// shortOrderCode beats orderCode, which beats referenceNumber; then the date window.
    func find(_ f: TransactionFinder, now: Int64, defaultToLatest: (SimTransaction) -> Bool) -> Found {
        var index: Int?
        if let s = f.shortOrderCode {
            index = state.index(shortOrderCode: s)
            if let i = index, state.transactions[i].tid != config.tid { index = nil }  // same terminal only
        } else if let o = f.orderCode {
            index = state.index(orderCode: o)
        } else if let r = f.referenceNumber {
            index = state.index(stan: r)
        } else {
            index = cardholderPick(defaultToLatest)
        }
        if f.txnDateTo != nil && f.txnDateFrom == nil { return .badWindow }
        guard let i = index else { return .notFound }
        if let fromText = f.txnDateFrom {
            guard let from = TerminalDate.parse(fromText) else { return .badWindow }
            let to: Int64
            if let toText = f.txnDateTo {
                guard let d = TerminalDate.parse(toText) else { return .badWindow }
                to = d.instant
            } else {
                to = now * 10_000 + 9_999
            }
            let at = state.transactions[i].instant
            if at < from.instant || at > to { return .notFound }
        }
        return .found(i)
    }

    /// No key (overview-sale-cancel.txt:148): the card is presented and the app lists "the last 3
    /// transactions made with the presented card"; the cardholder picks one. The card presented is that
    /// of the latest eligible transaction; the pick is seeded among that card's last three, of which
    /// those still eligible. Never older than the card's last three, never another card's.
    func cardholderPick(_ eligible: (SimTransaction) -> Bool) -> Int? {
        guard let latest = state.transactions.lastIndex(where: eligible) else { return nil }
        let card = state.transactions[latest].accountNumber
        var lastThree: [Int] = []
        for i in state.indices(card: card).reversed() {
            let t = state.transactions[i]
            if t.approved, t.kind == .sale || t.kind == .capture { lastThree.append(i) }
            if lastThree.count == 3 { break }
        }
        let choices = lastThree.filter { eligible(state.transactions[$0]) }
        // All of the card's last three are refunded already: the list offers nothing older.
        guard !choices.isEmpty else { return nil }
        return choices[Int(rng.below(UInt64(choices.count)))]
    }

    // MARK: - Refund

    func refund(_ r: CancelRequest, now: Int64) -> [(String, String)] {
        func fail(_ m: String) -> [(String, String)] { refusal(.cancel(r), message: m) }
        let i: Int
        switch find(r.finder, now: now, defaultToLatest: { ($0.kind == .sale || $0.kind == .capture) && $0.approved && $0.remaining > 0 }) {
        case .badWindow: return fail(SimMessage.invalidDateRange)
        case .notFound: return fail(SimMessage.notFound)
        case .found(let x): i = x
        }
        let orig = state.transactions[i]
        guard orig.approved, orig.kind == .sale || orig.kind == .capture else { return fail(SimMessage.notRefundable) }
        let amount = r.amount?.cents ?? orig.remaining
        guard amount > 0, amount <= orig.remaining else { return fail(SimMessage.exceedsRemaining) }
        state.update(i) { $0.remaining -= amount }
        let t = derived(from: orig, kind: .refund, amount: amount, clientTransactionId: nil, now: now)
        state.append(t)
        return [("status", "success"), ("message", t.message), ("action", "cancel"), ("amount", String(t.amount)),
                ("cardType", t.cardType), ("accountNumber", t.accountNumber), ("tid", t.tid),
                ("transactionDate", t.transactionDate), ("transactionId", t.transactionId),
                ("referenceNumber", t.referenceNumber), ("orderCode", t.orderCode), ("shortOrderCode", t.shortOrderCode)]
    }

    // MARK: - Capture

    func capture(_ r: CaptureRequest, now: Int64) -> [(String, String)] {
        func fail(_ m: String) -> [(String, String)] { refusal(.capturePreAuth(r), message: m) }
        let i: Int
        switch find(r.finder, now: now, defaultToLatest: { _ in false }) {
        case .badWindow: return fail(SimMessage.invalidDateRange)
        case .notFound: return fail(SimMessage.notFound)
        case .found(let x): i = x
        }
        let orig = state.transactions[i]
        guard orig.kind == .preAuth, orig.approved else { return fail(SimMessage.notCapturable) }
        guard !orig.captured else { return fail(SimMessage.alreadyCaptured) }
        let amount = r.amount?.cents ?? orig.remaining
        guard amount > 0, amount <= orig.remaining else { return fail(SimMessage.exceedsRemaining) }
        state.update(i) { $0.captured = true; $0.remaining = 0 }
        let t = derived(from: orig, kind: .capture, amount: amount, clientTransactionId: orig.clientTransactionId, now: now)
        state.append(t)
        return [("status", "success"), ("message", t.message), ("action", "capture_pre_auth"),
                ("clientTransactionId", t.clientTransactionId ?? ""), ("amount", String(t.amount)),
                ("cardType", t.cardType), ("accountNumber", t.accountNumber), ("orderCode", t.orderCode),
                ("shortOrderCode", t.shortOrderCode), ("tid", t.tid), ("transactionDate", t.transactionDate),
                ("transactionId", t.transactionId), ("referenceNumber", t.referenceNumber)]
    }

    /// A new approved transaction on the card of `orig` (refund or capture).
    func derived(from orig: SimTransaction, kind: TransactionKind, amount: Int, clientTransactionId: String?,
                         now: Int64) -> SimTransaction {
        let stan = takeStan()
        let rrn = digits(6) + stan
        let auth = digits(6)
        let (order, short) = takeOrderCode()
        let instant = takeInstant(now)
        return SimTransaction(
            kind: kind, approved: true, message: SimMessage.success, clientTransactionId: clientTransactionId,
            amount: amount, tipAmount: 0, installments: nil, referenceNumber: stan, rrn: rrn, authorisationCode: auth,
            tid: config.tid, orderCode: order, shortOrderCode: short, transactionId: uuid(upper: false),
            transactionDate: TerminalDate.format(instant: instant, offsetMinutes: config.utcOffsetMinutes), instant: instant,
            cardType: orig.cardType, accountNumber: orig.accountNumber, verificationMethod: orig.verificationMethod,
            remaining: kind == .capture ? amount : 0, captured: false, batchId: batchForTransaction(at: now).id,
            originalTransactionId: orig.transactionId, answered: true)
    }

    // MARK: - Details

    func details(_ d: DetailsRequest) -> [(String, String)] {
        let cid = d.clientTransactionId
        // The Android sample's sourceTerminalId: a transaction of another terminal is not found here.
        if let source = d.sourceTerminalId, source != config.tid {
            return [("status", "fail"), ("message", SimMessage.notFound), ("action", "transactionDetails"),
                    ("clientTransactionId", cid), ("sourceTerminalId", source)]
        }
        if let p = state.pending, p.clientTransactionId == cid {
            return [("status", "fail"), ("message", SimMessage.inProgress), ("action", "transactionDetails"),
                    ("clientTransactionId", cid)]
        }
        guard let t = state.transaction(clientTransactionId: cid) else {
            return [("status", "fail"), ("message", SimMessage.notFound), ("action", "transactionDetails"),
                    ("clientTransactionId", cid)]
        }
        var f = FieldList()
        cardAnswer(t, into: &f, status: "success", message: SimMessage.detailsFetched, action: "transactionDetails")
        f.add("transactionType", t.kind.rawValue)
        f.add("transactionStatus", t.approved ? "success" : "fail")
        f.add("transactionMessage", t.message)
        if let source = d.sourceTerminalId { f.add("sourceTerminalId", source) }
        return f.fields
    }
}
