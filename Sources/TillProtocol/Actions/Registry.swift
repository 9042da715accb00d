// Every action till knows, registered once: its case in `Action` (the wire name), its case in `Request` (its
// fields), and its declaration in `Action.declarations`. Adding an action is a file beside this one plus a line in
// each of the three; everything else looks the declaration up.

/// The actions the card-terminal app understands.
public enum Action: String, CaseIterable, Sendable, Codable, Hashable {
    case sale
    case preAuth = "pre_auth"
    case cancel
    case abort
    case batch
    case capturePreAuth = "capture_pre_auth"
    case transactionDetails
    // The vendor's sample apps' other actions.
    case reprintTransaction
    case getPrintingSettings
    case setPrintingSettings = "set_printing_settings"
    case sendLogs
    case getActivationCode
    case activatePos

    /// The action's declaration: everything about it in one place.
    public var declaration: any ActionDeclaration.Type {
        guard let d = Action.table[self] else { fatalError("no declaration registered for \(rawValue)") }
        return d
    }

    /// Every declaration, one an action.
    public static let declarations: [any ActionDeclaration.Type] = [
        SaleAction.self, PreAuthAction.self, RefundAction.self, AbortAction.self, BatchAction.self, CaptureAction.self,
        DetailsAction.self, ReprintAction.self, GetPrintingSettingsAction.self, SetPrintingSettingsAction.self,
        SendLogsAction.self, GetActivationCodeAction.self, ActivatePosAction.self,
    ]

    private static let table: [Action: any ActionDeclaration.Type] =
        Dictionary(uniqueKeysWithValues: declarations.map { ($0.action, $0) })
}

/// One typed request, whatever its action.
public enum Request: Sendable, Hashable, Codable {
    case sale(SaleRequest)
    case preAuth(PreAuthRequest)
    case cancel(CancelRequest)
    case abort
    case batch(BatchRequest)
    case capturePreAuth(CaptureRequest)
    case transactionDetails(DetailsRequest)
    case reprint(ReprintRequest)
    case getPrintingSettings
    case setPrintingSettings(PrintingSettings)
    case sendLogs
    case getActivationCode
    case activatePos(ActivationRequest)

    public var action: Action {
        switch self {
        case .sale: return .sale
        case .preAuth: return .preAuth
        case .cancel: return .cancel
        case .abort: return .abort
        case .batch: return .batch
        case .capturePreAuth: return .capturePreAuth
        case .transactionDetails: return .transactionDetails
        case .reprint: return .reprintTransaction
        case .getPrintingSettings: return .getPrintingSettings
        case .setPrintingSettings: return .setPrintingSettings
        case .sendLogs: return .sendLogs
        case .getActivationCode: return .getActivationCode
        case .activatePos: return .activatePos
        }
    }
}
