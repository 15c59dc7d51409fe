/// Uids in the order they came, each once, with membership in constant time: whom a connection has announced, and
/// whom the hub says is in the channel. A channel's people come from outside, so no loop over them may search a list.
struct UidList: RandomAccessCollection, ExpressibleByArrayLiteral, Equatable {
    private var order: [UInt] = []
    private var members: Set<UInt> = []

    init() {}

    init(_ uids: some Sequence<UInt>) {
        for uid in uids { append(uid) }
    }

    init(arrayLiteral uids: UInt...) { self.init(uids) }

    var startIndex: Int { order.startIndex }
    var endIndex: Int { order.endIndex }
    subscript(index: Int) -> UInt { order[index] }

    func contains(_ uid: UInt) -> Bool { members.contains(uid) }

    /// Adds `uid` at the end unless it is there already; whether it was added.
    @discardableResult
    mutating func append(_ uid: UInt) -> Bool {
        guard members.insert(uid).inserted else { return false }
        order.append(uid)
        return true
    }

    mutating func remove(_ uid: UInt) {
        guard members.remove(uid) != nil else { return }
        order.removeAll { $0 == uid }
    }
}
