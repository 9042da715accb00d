import TillProtocol

extension TerminalSimulator {
    // MARK: - The sample apps' administrative actions

    // Reprint, printing settings, logs and activation: answered with the sample apps' field names
    // (the Android sample's result screen reads them: `activationCode`, `isCustomerReceiptEnabled`, …).

    func reprint(_ x: ReprintRequest) -> [(String, String)] {
        let action = Action.reprintTransaction.rawValue
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
    }

    func printingSettings() -> [(String, String)] {
        let action = Action.getPrintingSettings.rawValue
        return [("status", "success"), ("message", SimMessage.printingSettings), ("action", action)] + state.setup.printing.fields
    }

    func setPrintingSettings(_ p: PrintingSettings) -> [(String, String)] {
        let action = Action.setPrintingSettings.rawValue
        state.setup.printing = state.setup.printing.applying(p)
        return [("status", "success"), ("message", SimMessage.printingSettingsSaved), ("action", action)] + state.setup.printing.fields
    }

    func sendLogs() -> [(String, String)] {
        let action = Action.sendLogs.rawValue
        state.setup.logsSent += 1
        return [("status", "success"), ("message", SimMessage.logsSent), ("action", action)]
    }

    func activationCode() -> [(String, String)] {
        let action = Action.getActivationCode.rawValue
        let code = String(digits(8))
        state.setup.activationCode = code
        return [("status", "success"), ("message", SimMessage.activationCode), ("action", action), ("activationCode", code)]
    }

    func activate(_ a: ActivationRequest) -> [(String, String)] {
        let action = Action.activatePos.rawValue
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
    }
}
