/// A TLV8 message: an ordered list of (type, value) items, as HAP pairing bodies carry them
/// (HAP spec §14.1; docs/hap-notes.md §1.2).
///
/// Encoding writes each item as type(1) ‖ length(1) ‖ value, splitting values over 255 bytes into
/// consecutive items of the same type (255 bytes each, the last one shorter) and writing an empty value as
/// `type 00`. Decoding joins consecutive items of the same type back into one value, except separators
/// (`0xFF`), which stay one item each and keep list entries apart. Unknown types are kept as they are.
public struct TLV8: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One item: a type and its whole (unfragmented) value.
    public struct Item: Sendable, Hashable {
        /// The item's type.
        public var type: TLV8Type
        /// The whole value (fragments joined).
        public var value: [UInt8]

        /// An item of `type` with `value`.
        public init(_ type: TLV8Type, _ value: [UInt8]) {
            self.type = type
            self.value = value
        }
    }

    /// The items in order.
    public var items: [Item]

    /// A message with these items.
    public init(_ items: [Item] = []) { self.items = items }

    /// A message from literal (type, value) pairs: `[(.state, [1]), (.method, [0])]`.
    public init(arrayLiteral elements: (TLV8Type, [UInt8])...) {
        items = elements.map { Item($0.0, $0.1) }
    }

    /// Decodes `bytes`. Throws `TLV8Error.truncated` when the input ends inside an item's header or value.
    public init(decoding bytes: [UInt8]) throws(TLV8Error) {
        var items: [Item] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 2 <= bytes.count else {
                throw .truncated(offset: offset, needed: 2, available: bytes.count - offset)
            }
            let type = TLV8Type(rawValue: bytes[offset])
            let length = Int(bytes[offset + 1])
            let start = offset + 2
            guard start + length <= bytes.count else {
                throw .truncated(offset: offset, needed: 2 + length, available: bytes.count - offset)
            }
            let value = bytes[start..<(start + length)]
            if type != .separator, let last = items.last, last.type == type {
                items[items.count - 1].value += value
            } else {
                items.append(Item(type, Array(value)))
            }
            offset = start + length
        }
        self.items = items
    }

    /// The wire bytes, values over 255 bytes fragmented.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(items.reduce(0) { $0 + $1.value.count + 2 * ($1.value.count / 255 + 1) })
        for item in items {
            guard !item.value.isEmpty else {
                bytes += [item.type.rawValue, 0]
                continue
            }
            var start = 0
            while start < item.value.count {
                let end = min(start + 255, item.value.count)
                bytes += [item.type.rawValue, UInt8(end - start)]
                bytes += item.value[start..<end]
                start = end
            }
        }
        return bytes
    }

    /// Appends an item.
    public mutating func append(_ type: TLV8Type, _ value: [UInt8]) { items.append(Item(type, value)) }

    /// Appends a one-byte item (State, Method, Permissions).
    public mutating func append(_ type: TLV8Type, byte: UInt8) { append(type, [byte]) }

    /// Appends a UTF-8 text item (Identifier).
    public mutating func append(_ type: TLV8Type, string: String) { append(type, Array(string.utf8)) }

    /// The value of the first item of `type`, or nil when there is none.
    public subscript(type: TLV8Type) -> [UInt8]? { items.first { $0.type == type }?.value }

    /// The values of every item of `type`, in order.
    public func values(of type: TLV8Type) -> [[UInt8]] { items.filter { $0.type == type }.map(\.value) }

    /// The first item of `type` read as a little-endian unsigned integer of 1…8 bytes (HAP's integer TLVs:
    /// State, Error, RetryDelay, Permissions); nil when missing, empty or longer than 8 bytes.
    public func integer(_ type: TLV8Type) -> UInt64? {
        guard let value = self[type], (1...8).contains(value.count) else { return nil }
        return value.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The first item of `type` as UTF-8 text; nil when missing or not valid UTF-8.
    public func string(_ type: TLV8Type) -> String? {
        guard let value = self[type] else { return nil }
        return String(validating: value, as: UTF8.self)
    }

    /// Splits a list into records: a separator ends a record, and so does a new item of `leading` type
    /// when the current record already has one (for servers that omit separators, docs/hap-notes.md §4.6).
    /// Separators are dropped and empty records skipped.
    public func records(startingWith leading: TLV8Type) -> [TLV8] {
        var records: [TLV8] = []
        var current = TLV8()
        for item in items {
            if item.type == .separator || (item.type == leading && current[leading] != nil) {
                if !current.items.isEmpty { records.append(current) }
                current = TLV8()
            }
            if item.type != .separator { current.items.append(item) }
        }
        if !current.items.isEmpty { records.append(current) }
        return records
    }

    /// Types and value sizes only, e.g. `TLV8[State: 1 B, PublicKey: 384 B]`: values may be secret.
    public var description: String {
        "TLV8[" + items.map { "\($0.type): \($0.value.count) B" }.joined(separator: ", ") + "]"
    }
}

/// Why bytes could not be read as TLV8.
public enum TLV8Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The input ends inside the item that starts at `offset`: it needs `needed` bytes, `available` remain.
    case truncated(offset: Int, needed: Int, available: Int)

    public var description: String {
        switch self {
        case .truncated(let offset, let needed, let available):
            return "truncated TLV8: the item at byte \(offset) needs \(needed) bytes but only \(available) remain"
        }
    }
}
