/// A token's privileges: id to value (seconds after issue in 007, a unix time in 006), ids ascending
/// as the format writes them.
public struct PrivilegeMap: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Entry: Sendable, Equatable {
        public var id: UInt16
        public var value: UInt32
    }

    private var entries: [Entry] = []

    public init() {}

    public init(dictionaryLiteral elements: (UInt16, UInt32)...) {
        for (id, value) in elements { self[id] = value }
    }

    public init(_ pairs: [UInt16: UInt32]) {
        entries = pairs.map { Entry(id: $0.key, value: $0.value) }.sorted { $0.id < $1.id }
    }

    /// The same value for each id.
    init(ids: [UInt16], value: UInt32) {
        entries = ids.sorted().map { Entry(id: $0, value: value) }
    }

    public subscript(id: UInt16) -> UInt32? {
        get { entries.first { $0.id == id }?.value }
        set {
            let index = entries.firstIndex { $0.id >= id } ?? entries.endIndex
            let present = index < entries.endIndex && entries[index].id == id
            switch (newValue, present) {
            case (let value?, true): entries[index].value = value
            case (let value?, false): entries.insert(Entry(id: id, value: value), at: index)
            case (nil, true): entries.remove(at: index)
            case (nil, false): break
            }
        }
    }

    public var count: Int { entries.count }
    public var ids: [UInt16] { entries.map(\.id) }
    public var values: [UInt32] { entries.map(\.value) }
    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}
