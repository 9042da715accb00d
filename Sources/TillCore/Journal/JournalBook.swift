import GRDB
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


    public func approved(_ action: Action, after id: Int64, charged: Money) throws -> [JournalEntry] {
        // A range of the primary key from `id` on: an overturn is rare and comes soon after its payment.
        try reading { db in
            try Row.fetchAll(db, sql: "SELECT \(Journal.columns) FROM entry WHERE id > ? AND action = ? AND state = 'approved' "
                             + "AND origin = 'request' ORDER BY id LIMIT 50", arguments: [id, action.rawValue])
                .map(Journal.entry(from:)).filter { $0.charged == charged }
        }
    }
}
