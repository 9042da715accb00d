import TillProtocol

/// Where answer fields go: a list, or straight into a callback URL.
protocol FieldSink {
    mutating func add(_ name: String, _ value: String)
}

struct FieldList: FieldSink {
    var fields: [(String, String)] = []
    mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }
}

/// Builds the text `CallbackResponse.url(callback:fields:)` builds, in one buffer:
/// `<callback>://result?k=v&…` (a callback holding `://` is used as it is), each value escaped like
/// `QueryCodec.encodeCallbackValue` (unreserved characters and `*`, `:`, `+` stay; everything else is `%XX`).
/// Every test checks the simulator's answers against `CallbackResponse.url`, byte for byte.
struct CallbackURLBuilder: FieldSink {
    private var bytes: [UInt8]
    private var first = true

    init(callback: String) {
        bytes = []
        bytes.reserveCapacity(640)
        bytes.append(contentsOf: callback.utf8)
        if !CallbackAddress.hasSchemeSeparator(callback) { bytes.append(contentsOf: "://result".utf8) }
        bytes.append(0x3F)  // ?
    }

    mutating func add(_ name: String, _ value: String) {
        if !first { bytes.append(0x26) }  // &
        first = false
        bytes.append(contentsOf: name.utf8)
        bytes.append(0x3D)  // =
        var plain = true
        for b in value.utf8 where !CallbackURLBuilder.keeps(b) { plain = false; break }
        if plain { bytes.append(contentsOf: value.utf8); return }
        for b in value.utf8 {
            if CallbackURLBuilder.keeps(b) {
                bytes.append(b)
            } else {
                bytes.append(0x25)
                bytes.append(CallbackURLBuilder.hexDigit(b >> 4))
                bytes.append(CallbackURLBuilder.hexDigit(b & 0xF))
            }
        }
    }

    @inline(__always) static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x41 + v - 10 }

    /// Unreserved characters and `*`, `:`, `+`: what a callback value keeps as it is.
    @inline(__always) static func keeps(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x3A)
            || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2A || b == 0x2B
    }

    var url: String { String(decoding: bytes, as: UTF8.self) }

}
