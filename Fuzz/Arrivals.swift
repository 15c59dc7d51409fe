// How a fuzz input's bytes arrive, for the harnesses that read a stream (http, websocket): compiled into each.

/// Pseudo-random chunk sizes (seeded by `seed`) of at most 1, 2, 7, 64, 512 or 4096 bytes, picked by `seed`,
/// that add up to at least `count`.
func arrivalSizes(of count: Int, seed: UInt8) -> [Int] {
    let largest = [1, 2, 7, 64, 512, 4096][Int(seed % 6)]
    var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    var sizes: [Int] = []
    var total = 0
    while total < count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        let next = 1 + Int(state % UInt64(largest))
        sizes.append(next)
        total += next
    }
    return sizes
}
