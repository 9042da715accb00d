/// Why a request URL could not be read (the simulator answers these with a failure).
public struct RequestParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var field: String?
    public var message: String
    public init(field: String? = nil, _ message: String) { self.field = field; self.message = message }
    public var description: String { message }
}

extension TerminalRequest {
    /// Reads a request URL back into a typed request: what the terminal app does on receipt.
    public static func parse(_ url: String) throws(RequestParseError) -> TerminalRequest {
        let split: QuerySplit
        do { split = try QuerySplit.split(url) } catch {
            throw RequestParseError("not a request URL (\(error))")
        }
        guard split.target.lowercased() == base else {
            throw RequestParseError("not a request for \(base): '\(split.target)'")
        }
        var map: [String: String] = [:]
        for f in split.fields { map[f.name] = f.value }
        func req(_ k: String) throws(RequestParseError) -> String {
            guard let v = map[k], !v.isEmpty else { throw RequestParseError(field: k, "\(k) is missing") }
            return v
        }
        func opt(_ k: String) -> String? { map[k].flatMap { $0.isEmpty ? nil : $0 } }
        func money(_ k: String) throws(RequestParseError) -> Money? {
            guard let v = opt(k) else { return nil }
            guard let m = Money.fromCents(Substring(v)) else { throw RequestParseError(field: k, "\(k) is not an integer amount of cents: '\(v)'") }
            return m
        }
        func bool(_ k: String) throws(RequestParseError) -> Bool? {
            guard let v = opt(k) else { return nil }
            switch v.lowercased() {
            case "true": return true
            case "false": return false
            default: throw RequestParseError(field: k, "\(k) must be true or false: '\(v)'")
            }
        }
        func int(_ k: String) throws(RequestParseError) -> Int? {
            guard let v = opt(k) else { return nil }
            guard let n = Int(v) else { throw RequestParseError(field: k, "\(k) is not a number: '\(v)'") }
            return n
        }
        func method() throws(RequestParseError) -> PaymentMethod? {
            guard let v = opt("paymentMethod") else { return nil }
            guard let m = PaymentMethod(rawValue: v) ?? PaymentMethod(typed: v) else {
                throw RequestParseError(field: "paymentMethod", "paymentMethod must be one of \(PaymentMethod.names): '\(v)'")
            }
            return m
        }
        func finder() -> TransactionFinder {
            TransactionFinder(referenceNumber: opt("referenceNumber"), orderCode: opt("orderCode"),
                              shortOrderCode: opt("shortOrderCode"), txnDateFrom: opt("txnDateFrom"), txnDateTo: opt("txnDateTo"))
        }
        let caller = Caller(callback: try req("callback"), merchantKey: map["merchantKey"] ?? "", appId: map["appId"] ?? "")
        let actionText = try req("action")
        guard let action = Action(lenient: actionText) else { throw RequestParseError(field: "action", "unknown action '\(actionText)'") }
        let request: Request
        switch action {
        case .sale:
            guard let amount = try money("amount") else { throw RequestParseError(field: "amount", "amount is missing") }
            var isv = ISVFields(amount: try money("ISV_amount"), clientId: opt("ISV_clientId"), clientSecret: opt("ISV_clientSecret"),
                                sourceCode: opt("ISV_sourceCode"), merchantId: opt("ISV_merchantId"),
                                merchantSourceCode: opt("ISV_merchantSourceCode"), customerTrns: opt("ISV_customerTrns"),
                                clientTransactionId: opt("ISV_clientTransactionId"), currencyCode: opt("ISV_currencyCode"))
            if isv.isEmpty { isv = ISVFields() }
            request = .sale(SaleRequest(amount: amount, tipAmount: try money("tipAmount"), clientTransactionId: opt("clientTransactionId"),
                                        withInstallments: try bool("withInstallments"), preferredInstallments: try int("preferredInstallments"),
                                        paymentMethod: try method(), showReceipt: try bool("show_receipt"), showRating: try bool("show_rating"),
                                        showTransactionResult: try bool("show_transaction_result"),
                                        isv: isv.isEmpty ? nil : isv, protocolName: opt("protocol")))
        case .preAuth:
            guard let amount = try money("amount") else { throw RequestParseError(field: "amount", "amount is missing") }
            request = .preAuth(PreAuthRequest(amount: amount, clientTransactionId: opt("clientTransactionId"),
                                              paymentMethod: try method(), showReceipt: try bool("show_receipt"), showRating: try bool("show_rating"),
                                              showTransactionResult: try bool("show_transaction_result"), protocolName: opt("protocol")))
        case .cancel:
            request = .cancel(CancelRequest(amount: try money("amount"), finder: finder(), showReceipt: try bool("show_receipt"),
                                            showTransactionResult: try bool("show_transaction_result"), protocolName: opt("protocol")))
        case .capturePreAuth:
            request = .capturePreAuth(CaptureRequest(amount: try money("amount"), finder: finder(), showReceipt: try bool("show_receipt"),
                                                     showTransactionResult: try bool("show_transaction_result"), protocolName: opt("protocol")))
        case .abort:
            request = .abort
        case .batch:
            let c = try req("command")
            guard let command = BatchCommand(rawValue: c.lowercased()) else { throw RequestParseError(field: "command", "command must be open or close: '\(c)'") }
            request = .batch(BatchRequest(command: command, batchName: opt("batchName"), batchId: opt("batchId")))
        case .transactionDetails:
            request = .transactionDetails(DetailsRequest(clientTransactionId: try req("clientTransactionId"),
                                                         sourceTerminalId: opt("sourceTerminalId")))
        case .reprintTransaction:
            request = .reprint(ReprintRequest(orderCode: opt("orderCode")))
        case .getPrintingSettings:
            request = .getPrintingSettings
        case .setPrintingSettings:
            var p = PrintingSettings()
            for (name, path) in PrintingSettings.switches { p[keyPath: path] = try bool(name) }
            if let t = opt(PrintingSettings.typeField) {
                guard let type = BusinessDescriptionType(rawValue: t) else {
                    throw RequestParseError(field: PrintingSettings.typeField,
                                            "businessDescriptionType must be one of \(BusinessDescriptionType.names): '\(t)'")
                }
                p.businessDescriptionType = type
            }
            request = .setPrintingSettings(p)
        case .sendLogs:
            request = .sendLogs
        case .getActivationCode:
            request = .getActivationCode
        case .activatePos:
            var flags: [String: Bool] = [:]
            for n in ActivationRequest.flagNames { if let v = try bool(n) { flags[n] = v } }
            request = .activatePos(ActivationRequest(apiKey: opt("apikey"), apiSecret: opt("apiSecret"),
                                                     activationCode: opt("activationCode"), sourceId: opt("sourceID"),
                                                     pinCode: opt("pinCode"), flags: flags))
        }
        return TerminalRequest(caller: caller, request: request)
    }
}
