/// One deadline per key, earliest first: a min-heap that also knows where each key sits, so that setting, moving or
/// removing a key's deadline and taking the earliest each cost O(log n), whatever the number of keys.
struct DeadlineHeap<Key: Hashable> {
    private var entries: [(at: Duration, key: Key)] = []
    private var positions: [Key: Int] = [:]

    var count: Int { entries.count }

    /// The earliest deadline, nil when none is set.
    var earliest: Duration? { entries.first?.at }

    /// Sets the key's deadline, in place of the one it had.
    mutating func set(_ key: Key, at deadline: Duration) {
        if let position = positions[key] {
            let earlier = deadline < entries[position].at
            entries[position].at = deadline
            if earlier { siftUp(position) } else { siftDown(position) }
        } else {
            entries.append((deadline, key))
            positions[key] = entries.count - 1
            siftUp(entries.count - 1)
        }
    }

    mutating func remove(_ key: Key) {
        guard let position = positions.removeValue(forKey: key) else { return }
        let last = entries.removeLast()
        guard position < entries.count else { return }
        entries[position] = last
        positions[last.key] = position
        siftUp(position)
        siftDown(positions[last.key]!)
    }

    /// Takes the key whose deadline is earliest, when it is at `now` or before.
    mutating func popDue(_ now: Duration) -> Key? {
        guard let first = entries.first, first.at <= now else { return nil }
        remove(first.key)
        return first.key
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].at < entries[parent].at else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let (left, right) = (2 * parent + 1, 2 * parent + 2)
            var least = parent
            if left < entries.count, entries[left].at < entries[least].at { least = left }
            if right < entries.count, entries[right].at < entries[least].at { least = right }
            guard least != parent else { return }
            swapAt(parent, least)
            parent = least
        }
    }

    private mutating func swapAt(_ i: Int, _ j: Int) {
        entries.swapAt(i, j)
        positions[entries[i].key] = i
        positions[entries[j].key] = j
    }
}
