import TillProtocol

// The simulated terminal taking a card: sale, pre-auth and abort, in stages on the injected clock.
extension TerminalSimulator {
    // MARK: - Sale and pre-auth

    func startCardTransaction(kind: TransactionKind, callback: String, tag: String?, clientTransactionId: String?,
                                      amount: Int, tip: Int, installments: Int?, paymentMethod: PaymentMethod?, now: Int64,
                                      _ out: inout [SimulatorOutput]) {
        // A repeated client transaction id does not charge twice: the original's result again.
        if let cid = clientTransactionId {
            if let p = state.pending, p.clientTransactionId == cid {
                return  // the same transaction is in progress: its one answer is still to come
            }
            if let t = state.transaction(clientTransactionId: cid), t.approved {
                out.append(SimulatorOutput(url: cardAnswerURL(t, callback: callback), tag: tag))
                return
            }
        }
        if state.pending != nil {
            var f: [(String, String)] = [("status", "fail"), ("message", SimMessage.inProgress), ("action", kind.rawValue),
                                         ("clientTransactionId", clientTransactionId ?? ""), ("amount", String(amount))]
            if kind == .sale { f.append(("tipAmount", String(tip))) }
            out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: f), tag: tag))
            return
        }
        // The scenario amounts are the goods the cashier types (with the tip included, the amount sent holds the tip).
        let scenario = Scenario.forAmount(cents: config.tipStyle == .included ? amount - tip : amount)
        let next: Int64?
        switch scenario {
        case .cardNeverPresented, .noAnswer: next = now + config.scaled(config.giveUpAfterMs)
        default: next = now + config.scaled(config.cardWaitMs)
        }
        state.pending = PendingTransaction(kind: kind, callback: callback, tag: tag, clientTransactionId: clientTransactionId,
                                           amount: amount, tipAmount: tip, installments: installments, scenario: scenario,
                                           stage: .waitingForCard, startedMs: now, nextMs: next, paymentMethod: paymentMethod)
    }

    func abort(callback: String, tag: String?, now: Int64, _ out: inout [SimulatorOutput]) {
        func answer(_ f: [(String, String)]) {
            out.append(SimulatorOutput(url: TerminalSimulator.callbackURL(callback: callback, fields: f), tag: tag))
        }
        guard let p = state.pending else {
            switch config.abortStyle {
            case .page:
                // abort.txt:69-71: action=abort, status=success, message "nothing to abort".
                answer([("status", "success"), ("message", SimMessage.pageNothingToAbort), ("action", "abort")])
            case .terminal, .saleOnly:
                answer([("status", "fail"), ("message", SimMessage.nothingToAbort), ("action", "ABORT")])
            }
            return
        }
        // Past the point of no return (abort.txt:14-16: the card read, a QR payment chosen, at the host):
        // no abort answer; the sale answers itself.
        guard p.stage == .waitingForCard, !(p.paymentMethod?.isQR ?? false) else { return }
        let txn = record(p, at: now, approved: false, message: SimMessage.aborted, cardRead: false, answered: true)
        state.pending = nil
        switch config.abortStyle {
        case .terminal:
            // The one answer closes both the abort and the sale; the sale is kept as aborted.
            answer([("status", "fail"), ("message", SimMessage.aborted), ("action", "ABORT"),
                    ("amount", String(p.amount)), ("tipAmount", String(p.tipAmount)),
                    ("clientTransactionId", p.clientTransactionId ?? "")])
        case .page:
            // The page's abort answer, then the sale's own (aborted) answer to the sale's callback.
            answer([("status", "success"), ("message", SimMessage.pageAborted), ("action", "abort")])
            out.append(SimulatorOutput(url: cardAnswerURL(txn, callback: p.callback), tag: p.tag))
        case .saleOnly:
            out.append(SimulatorOutput(url: cardAnswerURL(txn, callback: p.callback), tag: p.tag))
        }
    }

    func finish(_ p: PendingTransaction, at t: Int64, approved: Bool, message: String, cardRead: Bool, send: Bool,
                        _ out: inout [SimulatorOutput]) {
        let txn = record(p, at: t, approved: approved, message: message, cardRead: cardRead, answered: send)
        state.pending = nil
        if send {
            out.append(SimulatorOutput(url: cardAnswerURL(txn, callback: p.callback), tag: p.tag))
        }
    }

    @discardableResult
    func record(_ p: PendingTransaction, at t: Int64, approved: Bool, message: String, cardRead: Bool,
                        answered: Bool) -> SimTransaction {
        let card = cardRead ? drawCard() : ("", "", "")
        let rrnHead = cardRead ? digits(6) : ""
        var stan = ""
        var auth = ""
        if approved { stan = takeStan(); auth = digits(6) }
        let rrn = cardRead ? rrnHead + (stan.isEmpty ? digits(6) : stan) : ""
        var installments = p.installments
        // 0, or more than the terminal allows: the cardholder is prompted (sale.txt:28) and chooses.
        if let n = installments, n == 0 || n > Limits.installmentsWithoutPrompt { installments = Int(rng.below(11)) + 2 }
        let (order, short) = takeOrderCode()
        let instant = takeInstant(t)
        let txn = SimTransaction(
            kind: p.kind, approved: approved, message: message, clientTransactionId: p.clientTransactionId,
            amount: p.amount, tipAmount: p.tipAmount, installments: installments,
            referenceNumber: stan, rrn: rrn, authorisationCode: auth, tid: config.tid,
            orderCode: order, shortOrderCode: short, transactionId: uuid(upper: false),
            transactionDate: TerminalDate.format(instant: instant, offsetMinutes: config.utcOffsetMinutes), instant: instant,
            cardType: card.0, accountNumber: card.1,
            verificationMethod: cardRead && p.paymentMethod == .moto ? "MANUAL ENTRY" : card.2,
            // What the card paid (the tip on top of the amount, or in it): what refunds may give back.
            remaining: approved ? config.tipStyle.charged(amount: Money(cents: p.amount), tip: Money(cents: p.tipAmount)).cents : 0,
            captured: false,
            batchId: batchForTransaction(at: t).id, originalTransactionId: nil, answered: answered,
            paymentMethod: p.paymentMethod)
        state.append(txn)
        return txn
    }

    func cardAnswerURL(_ t: SimTransaction, callback: String) -> String {
        var u = CallbackURLBuilder(callback: callback)
        cardAnswer(t, into: &u)
        return u.url
    }

    /// The answer of a sale or pre-auth, fields in the pages' order.
    func cardAnswer<S: FieldSink>(_ t: SimTransaction, into f: inout S, status: String? = nil, message: String? = nil,
                                  action: String? = nil) {
        // The page's decline (overview-sale-cancel.txt:131) reads `failed`; real terminals say `fail`.
        f.add("status", status ?? (t.approved ? "success" : t.message == SimMessage.declinedByHost ? "failed" : "fail"))
        f.add("message", message ?? t.message)
        f.add("action", action ?? t.kind.rawValue)
        f.add("clientTransactionId", t.clientTransactionId ?? "")
        f.add("amount", String(t.amount))
        if t.kind == .sale { f.add("tipAmount", String(t.tipAmount)) }
        f.add("verificationMethod", t.verificationMethod); f.add("rrn", t.rrn); f.add("cardType", t.cardType)
        f.add("accountNumber", t.accountNumber); f.add("referenceNumber", t.referenceNumber)
        f.add("authorisationCode", t.authorisationCode); f.add("tid", t.tid); f.add("orderCode", t.orderCode)
        f.add("shortOrderCode", t.shortOrderCode)
        if let i = t.installments { f.add("installments", String(i)) }
        f.add("transactionDate", t.transactionDate); f.add("transactionId", t.transactionId)
    }
}
