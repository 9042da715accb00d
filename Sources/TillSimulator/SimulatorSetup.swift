import TillProtocol

extension TerminalSimulator {
    // MARK: - The sample apps' administrative actions

    /// Reprint, printing settings, logs and activation: answered with the sample apps' field names
    /// (the Android sample's result screen reads them: `activationCode`, `isCustomerReceiptEnabled`, …).
    func administrative(_ r: Request) -> [(String, String)] {
        let action = r.action.rawValue
        switch r {
        case .reprint(let x):
            let index: Int?
            if let o = x.orderCode { index = state.index(orderCode: o) }
            else { index = state.transactions.lastIndex(where: { $0.answered && !$0.orderCode.isEmpty }) }
            guard let i = index else {
                var f: [(String, String)] = [("status", "fail"), ("message", SimMessage.notFound), ("action", action)]
                if let o = x.orderCode { f.append(("orderCode", o)) }
                return f
            }
            state.setup.reprints += 1
            let t = state.transactions[i]
            return [("status", "success"), ("message", SimMessage.reprinted), ("action", action),
                    ("orderCode", t.orderCode), ("transactionId", t.transactionId)]
        case .getPrintingSettings:
            return [("status", "success"), ("message", SimMessage.printingSettings), ("action", action)] + state.setup.printing.fields
        case .setPrintingSettings(let p):
            state.setup.printing = state.setup.printing.applying(p)
            return [("status", "success"), ("message", SimMessage.printingSettingsSaved), ("action", action)] + state.setup.printing.fields
        case .sendLogs:
            state.setup.logsSent += 1
            return [("status", "success"), ("message", SimMessage.logsSent), ("action", action)]
        case .getActivationCode:
            let code = String(digits(8))
            state.setup.activationCode = code
            return [("status", "success"), ("message", SimMessage.activationCode), ("action", action), ("activationCode", code)]
        case .activatePos(let a):
            // By the code last issued, or by an API key and secret (any: the simulator has no accounts).
            let byCode = a.activationCode != nil && a.activationCode == state.setup.activationCode
            guard byCode || (a.activationCode == nil && a.apiKey != nil && a.apiSecret != nil) else {
                return [("status", "fail"), ("message", SimMessage.activationFailed), ("action", action)]
            }
            state.setup.activated = true
            state.setup.activationCode = nil
            state.setup.sourceId = a.sourceId
            for (k, v) in a.flags { state.setup.flags[k] = v }
            var f: [(String, String)] = [("status", "success"), ("message", SimMessage.activated), ("action", action),
                                         ("sourceTerminalId", config.tid)]
            if let source = a.sourceId { f.append(("sourceID", source)) }
            return f
        default:
            return [("status", "fail"), ("message", SimMessage.invalidRequest), ("action", action)]
        }
    }
}
