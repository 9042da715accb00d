import TillLife
import TillProtocol

// The journal is the book a payment's life reads and writes (`PaymentBook`): each write one SQLite transaction.
extension Journal: PaymentBook {
    public func awaitingWithoutReference(action: Action) throws -> [JournalEntry] {
        try awaitingWithoutReference(action: action, limit: 16)
    }

    public func entry(sameTransactionAs r: CallbackResponse, action: Action, excluding id: Int64?, countedOnly: Bool) throws -> JournalEntry? {
        try entry(sameTransactionAs: r, action: action, excluding: id, countedOnly: countedOnly, approvedOnly: false)
    }

    public func closeNames(batchId: String?, batchName: String?, open: BatchInfo) -> Bool {
        Journal.closeNames(batchId: batchId, batchName: batchName, openId: open.id, openName: open.name)
    }

    public func sameStoredAnswer(_ a: CallbackResponse, _ b: CallbackResponse) -> Bool {
        Journal.storedFields(a) == Journal.storedFields(b)
    }

}
