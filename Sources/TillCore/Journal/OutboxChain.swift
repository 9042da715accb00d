import Foundation
import GRDB

/// The outbox's hash chain: each event's hash is SHA-256 of (its predecessor's hash, its sequence as 8 bytes big
/// endian, its kind, a zero byte, its key, a zero byte, its payload as UTF-8). The store computes the same from the hash
/// it holds for the event before (`StoreSchema.v5`), so a history that differs anywhere from what the store holds (a
/// backup restored, an event edited, events cut off or spliced in) cannot go on from it, whatever its number of events.
/// The first event after the chain began (the events journaled before it carry none) follows `genesis`.
public enum OutboxChain {
    public static let genesis = Data(count: 32)

    public static func hash(previous: Data?, seq: Int64, kind: String, entityKey: String, payload: String) -> Data {
        var bytes = [UInt8](previous ?? genesis)
        withUnsafeBytes(of: UInt64(bitPattern: seq).bigEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: Array(kind.utf8)); bytes.append(0)
        bytes.append(contentsOf: Array(entityKey.utf8)); bytes.append(0)
        bytes.append(contentsOf: Array(payload.utf8))
        return Data(sha256(bytes))
    }

    /// Lower-case hex, as the store's push takes the hashes (`decode(…, 'hex')`).
    public static func hex(_ d: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](); out.reserveCapacity(d.count * 2)
        for b in d { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0xf)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The SQL function the outbox's trigger calls (`till_chain`): registered on every connection that writes the
    /// journal, so an event written by anything else (a hand edit with sqlite3) fails rather than goes unchained.
    static let function = DatabaseFunction("till_chain", argumentCount: 5, pure: true) { v in
        let previous = Data.fromDatabaseValue(v[0].databaseValue)
        guard let seq = Int64.fromDatabaseValue(v[1].databaseValue), let kind = String.fromDatabaseValue(v[2].databaseValue),
              let key = String.fromDatabaseValue(v[3].databaseValue), let payload = String.fromDatabaseValue(v[4].databaseValue) else {
            return nil
        }
        return hash(previous: previous, seq: seq, kind: kind, entityKey: key, payload: payload)
    }

    static func registerMigration(_ m: inout DatabaseMigrator) {
        m.registerMigration("v11-outbox-chain") { db in
            // An UPDATE of the row just made (not a column of the five triggers' inserts): the triggers that make
            // events stay as they are, and the predecessor is whatever event the outbox held last.
            try db.execute(sql: """
            ALTER TABLE outbox ADD COLUMN hash BLOB;
            CREATE TRIGGER outbox_chain AFTER INSERT ON outbox BEGIN
              UPDATE outbox SET hash = till_chain((SELECT hash FROM outbox WHERE seq < NEW.seq ORDER BY seq DESC LIMIT 1),
                                                  NEW.seq, NEW.kind, NEW.entityKey, NEW.payload)
               WHERE seq = NEW.seq;
            END;
            """)
        }
    }

    // FIPS 180-4 SHA-256: Foundation on Linux has none, and the journal must not need a crypto library to be written.
    static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public static func sha256(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var m = message
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        withUnsafeBytes(of: (UInt64(message.count) &* 8).bigEndian) { m.append(contentsOf: $0) }
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in stride(from: 0, to: m.count, by: 64) {
            for i in 0..<16 {
                let b = chunk + 4 * i
                w[i] = UInt32(m[b]) << 24 | UInt32(m[b + 1]) << 16 | UInt32(m[b + 2]) << 8 | UInt32(m[b + 3])
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
            for i in 0..<64 {
                let t1 = hh &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k[i] &+ w[i]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (i, v) in [a, b, c, d, e, f, g, hh].enumerated() { h[i] = h[i] &+ v }
        }
        return h.flatMap { v in [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
    }

    static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
}
