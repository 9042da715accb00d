/// Every field of a query, in arrival order: a collection of `QueryField`s that behaves like
/// `[QueryField]` (indexable, mutable, range-replaceable, `Hashable`, `Codable` as a JSON array of
/// `{"name":…,"value":…}`) but, as the decoder makes it, keeps the fields compactly: the text they
/// came in (shared, not copied) plus one 10-byte record a field saying where its name and value lie.
/// A field's `String`s are made only when it is read. Writing a field stores it as an override;
/// inserting or removing fields turns the collection into a plain array of `QueryField`s.
public struct QueryFields: RandomAccessCollection, MutableCollection, RangeReplaceableCollection,
    ExpressibleByArrayLiteral, Hashable, Sendable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    enum Storage: Sendable {
        case raw(RawFieldList)
        case array([QueryField])
    }
    var storage: Storage

    init(raw: RawFieldList) { storage = .raw(raw) }
    public init() { storage = .array([]) }
    public init(_ fields: [QueryField]) { storage = .array(fields) }
    public init<S: Sequence>(_ elements: S) where S.Element == QueryField { storage = .array(Array(elements)) }
    public init(arrayLiteral elements: QueryField...) { storage = .array(elements) }

    public typealias Index = Int
    public typealias Indices = Range<Int>
    public var startIndex: Int { 0 }
    public var endIndex: Int {
        switch storage {
        case .raw(let r): return r.records.count
        case .array(let a): return a.count
        }
    }
    public var count: Int { endIndex }
    public var isEmpty: Bool { endIndex == 0 }
    public var indices: Range<Int> { 0..<endIndex }
    @inline(__always) public func index(after i: Int) -> Int { i + 1 }
    @inline(__always) public func index(before i: Int) -> Int { i - 1 }

    public subscript(position: Int) -> QueryField {
        get {
            switch storage {
            case .raw(let r): return r.field(position)
            case .array(let a): return a[position]
            }
        }
        set {
            switch storage {
            case .array(var a):
                storage = .array([])     // one owner while it changes: no copy
                a[position] = newValue
                storage = .array(a)
            case .raw(var r):
                storage = .array([])
                r.setOverride(position, newValue)
                storage = .raw(r)
            }
        }
    }

    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == QueryField {
        var a: [QueryField]
        switch storage {
        case .array(let x): a = x
        case .raw(let r): a = r.materialised()
        }
        storage = .array([])
        a.replaceSubrange(subrange, with: newElements)
        storage = .array(a)
    }

    public mutating func reserveCapacity(_ n: Int) {
        if case .array(var a) = storage { storage = .array([]); a.reserveCapacity(n); storage = .array(a) }
    }

    /// The fields as a plain array.
    public var array: [QueryField] {
        switch storage {
        case .raw(let r): return r.materialised()
        case .array(let a): return a
        }
    }

    // MARK: Lookup by name without making every field's strings

    /// The value of the first field with this name (`String` equality, as `first { $0.name == name }`).
    public func value(named name: String) -> String? {
        switch storage {
        case .array(let a):
            for f in a where f.name == name { return f.value }
            return nil
        case .raw(let r):
            var copy = name
            let (kind, ascii) = copy.withUTF8 { p -> (KnownField, Bool) in
                var all: UInt8 = 0
                for b in p { all |= b }
                return (KnownField.match(p), all < 0x80)
            }
            return r.value(named: name, kind: kind, ascii: ascii)
        }
    }

    /// The value of a known field: the same answer as `value(named: kind.name)`.
    func value(of kind: KnownField) -> String? {
        switch storage {
        case .array(let a):
            let name = kind.name
            for f in a where f.name == name { return f.value }
            return nil
        case .raw(let r):
            return r.value(named: kind.name, kind: kind, ascii: true)
        }
    }

    // MARK: Equality, hashing, coding: exactly those of `[QueryField]`

    public static func == (a: QueryFields, b: QueryFields) -> Bool {
        if case .raw(let x) = a.storage, case .raw(let y) = b.storage, x.isIdentical(to: y) { return true }
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i] != b[i] { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for f in self { hasher.combine(f) }
    }

    public init(from decoder: any Decoder) throws {
        storage = .array(try [QueryField](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try array.encode(to: encoder)
    }

    /// Calls `body` with each field's name and value as UTF-8 bytes, in order: the same text as
    /// `self[i].name` and `self[i].value`, but, for a field the decoder kept raw whose bytes are its
    /// text (no `%`, all ASCII), straight from the received line, with no `String` made. The buffers
    /// are valid only inside `body`. (For writers that copy bytes out: `till decode --json`.)
    public func forEachUTF8(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        @inline(__always) func strings(_ name: String, _ value: String) {
            var n = name, v = value
            n.withUTF8 { nb in v.withUTF8 { vb in body(nb, vb) } }
        }
        switch storage {
        case .array(let a):
            for f in a { strings(f.name, f.value) }
        case .raw(let r):
            r.withBytes { b in
                for rec in r.records {
                    if rec.flags & RawField.overridden != 0 {
                        let o = r.overrides[Int(rec.valueStart)]
                        strings(o.name, o.value)
                        continue
                    }
                    let vb = RawFieldList.slice(b, rec.valueStart, rec.valueEnd)
                    let rawValue = rec.flags & RawField.valuePercent == 0 && Self.isASCII(vb)
                    if rec.kind != .unknown {
                        var name = rec.kind.name
                        name.withUTF8 { nb in
                            if rawValue { body(nb, vb) } else { var v = RawFieldList.value(rec, b); v.withUTF8 { body(nb, $0) } }
                        }
                    } else if rec.flags & RawField.plainASCIIName != 0 && rawValue {
                        body(RawFieldList.slice(b, rec.nameStart, rec.nameEnd), vb)
                    } else {
                        strings(RawFieldList.name(rec, b), RawFieldList.value(rec, b))
                    }
                }
            }
        }
    }

    /// Whether every byte is ASCII (then the bytes are their own valid UTF-8), eight at a time.
    @inline(__always) static func isASCII(_ p: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = p.baseAddress else { return true }
        let n = p.count
        var i = 0
        var acc: UInt64 = 0
        while i + 8 <= n { acc |= UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self); i += 8 }
        while i < n { acc |= UInt64(base[i]); i += 1 }
        return acc & 0x8080_8080_8080_8080 == 0
    }

    public var description: String { array.description }
    public var debugDescription: String { array.debugDescription }
}

/// One field as the query split found it, offsets counted from the trimmed line's first byte
/// (a line is at most `QuerySplit.maxLength` bytes, so they fit 16 bits).
struct RawField: Sendable, Equatable {
    var nameStart: UInt16
    var nameEnd: UInt16
    /// For an overridden field: the override's index.
    var valueStart: UInt16
    var valueEnd: UInt16
    var kind: KnownField
    var flags: UInt8

    static let namePercent: UInt8 = 1    // the name holds '%': decoded when made
    static let valuePercent: UInt8 = 2   // the value holds '%': decoded (and, escaped spaces at an end, trimmed) when made
    static let plainASCIIName: UInt8 = 4 // the name's bytes are its text (no '%', ASCII only)
    static let overridden: UInt8 = 8     // replaced by `overrides[valueStart]`
}

/// The decoder's compact form of a query's fields: the source text and one record a field.
struct RawFieldList: Sendable {
    /// The text the fields came from (the whole line as received; contiguous UTF-8).
    var source: String
    /// Where the trimmed line starts in `source`'s UTF-8.
    var base: Int
    var records: [RawField]
    /// Fields written after decoding (a masked card number, a mended date, a redaction).
    var overrides: [QueryField] = []

    @inline(__always) func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var s = source
        return s.withUTF8 { all in body(UnsafeBufferPointer(rebasing: all[base...])) }
    }

    func isIdentical(to other: RawFieldList) -> Bool {
        guard records == other.records, overrides == other.overrides else { return false }
        // The same records over texts whose ranges hold the same bytes make the same fields.
        return withBytes { a in other.withBytes { b in
            for r in records where r.flags & RawField.overridden == 0 {
                if !a[Int(r.nameStart)..<Int(r.nameEnd)].elementsEqual(b[Int(r.nameStart)..<Int(r.nameEnd)]) { return false }
                if !a[Int(r.valueStart)..<Int(r.valueEnd)].elementsEqual(b[Int(r.valueStart)..<Int(r.valueEnd)]) { return false }
            }
            return true
        } }
    }

    @inline(__always) static func slice(_ b: UnsafeBufferPointer<UInt8>, _ s: UInt16, _ e: UInt16) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: b[Int(s)..<Int(e)])
    }

    /// A field's name, as the split read it.
    static func name(_ r: RawField, _ b: UnsafeBufferPointer<UInt8>) -> String {
        if r.kind != .unknown { return r.kind.name }
        let p = slice(b, r.nameStart, r.nameEnd)
        if r.flags & RawField.namePercent != 0 { var bad = false; return QueryCodec.decode(p, badEscape: &bad) }
        return String(decoding: p, as: UTF8.self)
    }

    /// A field's value, as the split read it: percent-decoded, an escaped space at either end trimmed.
    static func value(_ r: RawField, _ b: UnsafeBufferPointer<UInt8>) -> String {
        let v = slice(b, r.valueStart, r.valueEnd)
        if r.flags & RawField.valuePercent == 0 { return String(decoding: v, as: UTF8.self) }
        var bad = false
        let s = QueryCodec.decode(v, badEscape: &bad)
        if QuerySplit.isEscapedSpace(v, at: 0) || QuerySplit.isEscapedSpace(v, at: v.count - 3) { return s.trimmingWhitespace() }
        return s
    }

    func field(_ i: Int) -> QueryField {
        let r = records[i]
        if r.flags & RawField.overridden != 0 { return overrides[Int(r.valueStart)] }
        return withBytes { b in QueryField(name: RawFieldList.name(r, b), value: RawFieldList.value(r, b)) }
    }

    func name(_ i: Int) -> String {
        let r = records[i]
        if r.flags & RawField.overridden != 0 { return overrides[Int(r.valueStart)].name }
        if r.kind != .unknown { return r.kind.name }
        return withBytes { RawFieldList.name(r, $0) }
    }

    func value(_ i: Int) -> String {
        let r = records[i]
        if r.flags & RawField.overridden != 0 { return overrides[Int(r.valueStart)].value }
        return withBytes { RawFieldList.value(r, $0) }
    }

    mutating func setOverride(_ i: Int, _ f: QueryField) {
        if records[i].flags & RawField.overridden != 0 {
            overrides[Int(records[i].valueStart)] = f
        } else {
            records[i].flags |= RawField.overridden
            records[i].valueStart = UInt16(overrides.count)
            overrides.append(f)
        }
    }

    mutating func setValue(_ i: Int, _ value: String) {
        setOverride(i, QueryField(name: name(i), value: value))
    }

    func materialised() -> [QueryField] {
        var out: [QueryField] = []
        out.reserveCapacity(records.count)
        withBytes { b in
            for r in records {
                if r.flags & RawField.overridden != 0 { out.append(overrides[Int(r.valueStart)]); continue }
                out.append(QueryField(name: RawFieldList.name(r, b), value: RawFieldList.value(r, b)))
            }
        }
        return out
    }

    /// The first field named `name` (`String` equality), without making the other fields' strings.
    /// `kind` is what `name`'s bytes match, `ascii` whether they are all ASCII: two ASCII texts are
    /// equal as `String`s exactly when their bytes are, so ASCII names compare by kind or by bytes.
    func value(named name: String, kind: KnownField, ascii: Bool) -> String? {
        var copy = name
        return copy.withUTF8 { q -> String? in
            withBytes { b -> String? in
                for r in records {
                    if r.flags & RawField.overridden != 0 {
                        let o = overrides[Int(r.valueStart)]
                        if o.name == name { return o.value }
                        continue
                    }
                    if r.kind != .unknown {
                        if ascii ? r.kind == kind : r.kind.name == name { return RawFieldList.value(r, b) }
                    } else if ascii && r.flags & RawField.plainASCIIName != 0 {
                        if kind == .unknown, KnownField.same(RawFieldList.slice(b, r.nameStart, r.nameEnd), q) {
                            return RawFieldList.value(r, b)
                        }
                    } else if RawFieldList.name(r, b) == name {
                        return RawFieldList.value(r, b)
                    }
                }
                return nil
            }
        }
    }
}

extension KnownField {
    @inline(__always) static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return memcmpBytes(a.baseAddress!, b.baseAddress!, a.count)
    }

    @inline(__always) static func memcmpBytes(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
            i += 8
        }
        while i < n { if a[i] != b[i] { return false }; i += 1 }
        return true
    }
}
