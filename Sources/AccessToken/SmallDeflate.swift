#if canImport(Glibc)
import Glibc
#endif

/// zlib 1.2.13's level-6 stream (`compress2` at `Z_DEFAULT_COMPRESSION`), reproduced byte for byte for small inputs.
///
/// It takes zlib's decisions in zlib's order — lazy matching over 3-byte hash chains, one final block, the cheapest
/// of stored, fixed and dynamic codes, Huffman trees with zlib's tie-breaks and length fix-up — but keeps the heads of
/// its hash chains in a small table sized to the input instead of zlib's 128 KB one. Written from RFC 1950/1951 and
/// zlib's observable behaviour; SmallDeflateTests holds it to zlib's bytes.
enum SmallDeflate {
    /// Largest input taken: zlib writes one block below 16 383 symbols and caps distances only above 32 506.
    static let limit = 8 * 1024

    /// The zlib stream for `input`: header 78 9C, one deflate block, big-endian Adler-32.
    static func compress(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        precondition(input.count <= limit, "SmallDeflate takes at most \(limit) bytes, not \(input.count)")
        return workspaces.object.compress(input)
    }

    /// Each thread's workspace. One shared pool handed a server's workspaces from core to core, and their Huffman
    /// heaps had to come across with them each time.
    private static let workspaces = PerThread { Workspace() }
}

// zlib's level-6 parameters and the deflate alphabets.
private let hashBits = 15
private let hashMask = (1 << hashBits) - 1
/// Head slots for the longest input (two per position), and the mark of a slot in use.
private let headCapacity = 2 * SmallDeflate.limit
private let occupied: UInt32 = 1 << 31
private let goodLength = 8
private let maxLazy = 16
private let niceLength = 128
private let maxChain = 128
private let tooFar = 4096
private let minMatch = 3
private let maxMatch = 258
private let literalCodes = 286
private let distanceCodes = 30
private let lengthCodes = 19
private let endOfBlock = 256
private let maxBits = 15
private let maxLengthBits = 7
private let lengthOrder: [Int] = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

/// Offsets of the three alphabets (literal/length, distance, code length) in the per-symbol arrays, 64-aligned so
/// that each has its own words of the `seen` bits.
private let litBase = 0, distBase = 320, lenBase = 384, alphabetSpace = 448

/// Nodes of the largest Huffman tree, plus slot 0 of the 1-based heap.
private let nodeSpace = 2 * literalCodes + 1

/// Length symbol (less 257) for a match length less 3.
@inline(__always) private func lengthSlot(_ lc: Int) -> Int {
    if lc < 8 { return lc }
    if lc == 255 { return 28 }
    let top = Int.bitWidth - 1 - lc.leadingZeroBitCount
    return 4 * (top - 1) + (lc >> (top - 2)) & 3
}

/// Extra bits after length symbol 257 + `slot`.
@inline(__always) private func lengthExtra(_ slot: Int) -> Int {
    slot < 8 || slot == 28 ? 0 : slot >> 2 - 1
}

/// Smallest match length less 3 that length symbol 257 + `slot` stands for.
@inline(__always) private func lengthStart(_ slot: Int) -> Int {
    if slot < 8 { return slot }
    if slot == 28 { return 255 }
    return (4 + slot & 3) << (slot >> 2 - 1)
}

/// Distance symbol for a distance less 1.
@inline(__always) private func distanceSlot(_ d: Int) -> Int {
    if d < 4 { return d }
    let top = Int.bitWidth - 1 - d.leadingZeroBitCount
    return 2 * top + (d >> (top - 1)) & 1
}

/// Extra bits after distance symbol `slot`.
@inline(__always) private func distanceExtra(_ slot: Int) -> Int {
    slot < 4 ? 0 : slot >> 1 - 1
}

/// Smallest distance less 1 that distance symbol `slot` stands for.
@inline(__always) private func distanceStart(_ slot: Int) -> Int {
    slot < 4 ? slot : (2 + slot & 1) << (slot >> 1 - 1)
}

/// Extra bits after code-length symbol `symbol` (16: 2, 17: 3, 18: 7).
@inline(__always) private func lengthCodeExtra(_ symbol: Int) -> Int {
    symbol < 16 ? 0 : symbol == 16 ? 2 : symbol == 17 ? 3 : 7
}

/// The low `length` bits of `code` in reverse order, as deflate sends Huffman codes.
@inline(__always) private func reversed(_ code: Int, _ length: Int) -> UInt16 {
    var v = UInt16(truncatingIfNeeded: code)
    v = (v & 0x5555) << 1 | (v >> 1) & 0x5555
    v = (v & 0x3333) << 2 | (v >> 2) & 0x3333
    v = (v & 0x0F0F) << 4 | (v >> 4) & 0x0F0F
    return v.byteSwapped >> (16 - length)
}

extension SmallDeflate {
    /// A Huffman tree node in zlib's heap, packed as weight << 18 | depth << 10 | node.
    struct HeapEntry {
        let bits: UInt64

        init(weight: UInt64, depth: UInt8, node: Int) {
            bits = weight << 18 | UInt64(depth) << 10 | UInt64(node)
        }

        var weight: UInt64 { bits >> 18 }
        var depth: UInt8 { UInt8(truncatingIfNeeded: bits >> 10) }
        var node: Int { Int(bits & 0x3FF) }

        /// zlib's `smaller`: lighter, or as heavy and no deeper.
        @inline(__always) func precedes(_ other: HeapEntry) -> Bool { bits >> 10 <= other.bits >> 10 }
    }

    /// What `buildLengths` made: the last symbol to send and how many symbols got a code.
    struct Coded {
        var last: Int
        var count: Int
    }

    /// Writes code lengths as zlib's code-length symbols, as symbol | extra-bits value << 5, counting each symbol.
    struct RunWriter {
        let workspace: Workspace
        var count: Int
        var previous = -1

        /// `repeats` × `value` in zlib's pieces: 17/18 for zeros, value then 16 (16 alone after a piece of the same).
        @inline(__always) mutating func run(_ value: Int, _ repeats: Int) {
            if repeats < 3 {
                for _ in 0..<repeats { emit(value, 0) }
                previous = value
                return
            }
            var left = repeats
            while left > 0 {
                let continues = value == previous
                let piece = min(left, value == 0 ? 138 : continues ? 6 : 7)
                if piece < (value == 0 || continues ? 3 : 4) {
                    for _ in 0..<piece { emit(value, 0) }
                } else if value == 0 {
                    if piece <= 10 { emit(17, piece - 3) } else { emit(18, piece - 11) }
                } else if continues {
                    emit(16, piece - 3)
                } else {
                    emit(value, 0)
                    emit(16, piece - 4)
                }
                previous = value
                left -= piece
            }
        }

        @inline(__always) mutating func emit(_ symbol: Int, _ extra: Int) {
            workspace.runs[count] = UInt16(symbol | extra << 5)
            workspace.tally(lenBase + symbol)
            count += 1
        }
    }

    /// Packs bits least significant first, as deflate orders them.
    struct BitWriter {
        var out: UnsafeMutablePointer<UInt8>
        var buffer: UInt64 = 0
        var count = 0

        @inline(__always) mutating func write(_ bits: Int, _ length: Int) {
            buffer |= UInt64(truncatingIfNeeded: bits) << count
            count += length
            if count >= 32 {
                let word = UInt32(truncatingIfNeeded: buffer).littleEndian
                UnsafeMutableRawPointer(out).storeBytes(of: word, as: UInt32.self)
                out += 4
                buffer >>= 32
                count -= 32
            }
        }

        /// Writes out the bits still held, the last byte padded with zeros.
        mutating func flushToByte() {
            while count > 0 {
                byte(Int(truncatingIfNeeded: buffer))
                buffer >>= 8
                count -= 8
            }
            buffer = 0
            count = 0
        }

        mutating func byte(_ value: Int) {
            out.pointee = UInt8(truncatingIfNeeded: value)
            out += 1
        }
    }

    /// Memory for one compression at a time.
    final class Workspace {
        /// The input, with slack so that matches can be compared 8 bytes at a time.
        let window = UnsafeMutablePointer<UInt8>.allocate(capacity: SmallDeflate.limit + 8)
        /// The most recent position of each 3-byte hash this call has seen, open-addressed: `occupied | hash << 16 |
        /// position` (0: an empty slot), in the first 2n entries (a power of two, 64 at least), emptied at each call. zlib indexes 32 768
        /// heads by the hash itself, 128 KB whose ~120 lines a token touches missed the cache on a busy server (82 % of
        /// this search's samples were the load of a head).
        let head = UnsafeMutablePointer<UInt32>.allocate(capacity: headCapacity)
        /// Previous position with the same hash, for each position (0: none, as in zlib).
        let chain = UnsafeMutablePointer<UInt16>.allocate(capacity: SmallDeflate.limit)
        /// Literals (distance 0) and matches as distance << 8 | length - 3.
        let symbols = UnsafeMutablePointer<UInt32>.allocate(capacity: SmallDeflate.limit)
        /// Symbol counts of the three alphabets.
        let freq = UnsafeMutablePointer<UInt32>.allocate(capacity: alphabetSpace)
        /// A bit per symbol whose count is not zero.
        let seen = UnsafeMutablePointer<UInt64>.allocate(capacity: alphabetSpace / 64)
        /// Code lengths and bit-reversed codes of the block's three Huffman codes, and of the fixed ones.
        let lengths = UnsafeMutablePointer<UInt8>.allocate(capacity: alphabetSpace)
        let codes = UnsafeMutablePointer<UInt16>.allocate(capacity: alphabetSpace)
        /// The symbols of each alphabet that have a code, ascending.
        let coded = UnsafeMutablePointer<Int>.allocate(capacity: alphabetSpace)
        let fixedLengths = UnsafeMutablePointer<UInt8>.allocate(capacity: alphabetSpace)
        let fixedCodes = UnsafeMutablePointer<UInt16>.allocate(capacity: alphabetSpace)
        /// The code-length sequence of both trees, as symbol | extra-bits value << 5.
        let runs = UnsafeMutablePointer<UInt16>.allocate(capacity: literalCodes + distanceCodes)
        // Huffman construction: the 1-based heap, nodes in order of removal, each node's parent and depth in bits.
        let heap = UnsafeMutablePointer<HeapEntry>.allocate(capacity: nodeSpace)
        let order = UnsafeMutablePointer<Int>.allocate(capacity: nodeSpace)
        let parent = UnsafeMutablePointer<Int>.allocate(capacity: nodeSpace)
        let nodeBits = UnsafeMutablePointer<Int>.allocate(capacity: nodeSpace)
        let bitCount = UnsafeMutablePointer<Int>.allocate(capacity: maxBits + 1)
        let nextCode = UnsafeMutablePointer<Int>.allocate(capacity: maxBits + 1)

        init() {
            window.initialize(repeating: 0, count: SmallDeflate.limit + 8)
            head.initialize(repeating: 0, count: headCapacity)
            for symbol in 0..<288 {
                fixedLengths[litBase + symbol] = symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8
                coded[litBase + symbol] = symbol
            }
            for symbol in 0..<distanceCodes {
                fixedLengths[distBase + symbol] = 5
                coded[distBase + symbol] = symbol
            }
            assignCodes(fixedLengths + litBase, coded + litBase, count: 288, into: fixedCodes + litBase)
            assignCodes(fixedLengths + distBase, coded + distBase, count: distanceCodes, into: fixedCodes + distBase)
        }

        deinit {
            for pointer in [window, lengths, fixedLengths] as [UnsafeMutablePointer<UInt8>] { pointer.deallocate() }
            for pointer in [chain, codes, fixedCodes, runs] as [UnsafeMutablePointer<UInt16>] { pointer.deallocate() }
            for pointer in [head, symbols, freq] as [UnsafeMutablePointer<UInt32>] { pointer.deallocate() }
            seen.deallocate()
            for pointer in [coded, order, parent, nodeBits, bitCount, nextCode] as [UnsafeMutablePointer<Int>] {
                pointer.deallocate()
            }
            heap.deallocate()
        }

        /// The zlib stream for `input`, at most `limit` bytes.
        func compress(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
            let n = input.count
            if let base = input.baseAddress { window.update(from: base, count: n) }
            freq.update(repeating: 0, count: alphabetSpace)
            seen.update(repeating: 0, count: alphabetSpace / 64)
            tally(litBase + endOfBlock)
            let symbolCount = findMatches(n)

            let lit = buildLengths(litBase, count: literalCodes, limit: maxBits)
            let dist = buildLengths(distBase, count: distanceCodes, limit: maxBits)
            let runCount = appendRuns(distBase, dist, at: appendRuns(litBase, lit, at: 0))
            let len = buildLengths(lenBase, count: lengthCodes, limit: maxLengthBits)
            var lengthCount = lengthCodes
            while lengthCount > 4 && lengths[lenBase + lengthOrder[lengthCount - 1]] == 0 { lengthCount -= 1 }

            // Block sizes as zlib reckons them, in bits: block header, tree description, codes, extra bits.
            var extraBits = 0, dynamicBits = 3 + 5 + 5 + 4 + 3 * lengthCount, fixedBits = 3
            for index in 0..<lit.count {
                let symbol = coded[litBase + index], f = Int(freq[litBase + symbol])
                dynamicBits += f * Int(lengths[litBase + symbol])
                fixedBits += f * Int(fixedLengths[litBase + symbol])
                if symbol > endOfBlock { extraBits += f * lengthExtra(symbol - endOfBlock - 1) }
            }
            for index in 0..<dist.count {
                let symbol = coded[distBase + index], f = Int(freq[distBase + symbol])
                dynamicBits += f * Int(lengths[distBase + symbol])
                fixedBits += f * 5
                extraBits += f * distanceExtra(symbol)
            }
            for index in 0..<len.count {
                let symbol = coded[lenBase + index]
                dynamicBits += Int(freq[lenBase + symbol]) * (Int(lengths[lenBase + symbol]) + lengthCodeExtra(symbol))
            }
            let dynamicBytes = (dynamicBits + extraBits + 7) >> 3, fixedBytes = (fixedBits + extraBits + 7) >> 3
            let best = min(dynamicBytes, fixedBytes)

            return [UInt8](unsafeUninitializedCapacity: n + 11) { buffer, written in
                var bits = BitWriter(out: buffer.baseAddress!)
                bits.byte(0x78)
                bits.byte(0x9C)
                if n + 4 <= best {
                    bits.write(0b001, 3)  // final, stored
                    bits.flushToByte()
                    bits.byte(n)
                    bits.byte(n >> 8)
                    bits.byte(~n)
                    bits.byte(~n >> 8)
                    if n > 0 { bits.out.update(from: window, count: n) }
                    bits.out += n
                } else if fixedBytes == best {
                    bits.write(0b011, 3)  // final, fixed codes
                    writeSymbols(symbolCount, lengths: fixedLengths, codes: fixedCodes, to: &bits)
                } else {
                    assignCodes(lengths + litBase, coded + litBase, count: lit.count, into: codes + litBase)
                    assignCodes(lengths + distBase, coded + distBase, count: dist.count, into: codes + distBase)
                    assignCodes(lengths + lenBase, coded + lenBase, count: len.count, into: codes + lenBase)
                    bits.write(0b101, 3)  // final, dynamic codes
                    bits.write(lit.last + 1 - 257, 5)
                    bits.write(dist.last, 5)
                    bits.write(lengthCount - 4, 4)
                    for rank in 0..<lengthCount { bits.write(Int(lengths[lenBase + lengthOrder[rank]]), 3) }
                    for index in 0..<runCount {
                        let symbol = Int(runs[index] & 31), codeBits = Int(lengths[lenBase + symbol])
                        bits.write(Int(codes[lenBase + symbol]) | Int(runs[index] >> 5) << codeBits,
                                   codeBits + lengthCodeExtra(symbol))
                    }
                    writeSymbols(symbolCount, lengths: lengths, codes: codes, to: &bits)
                }
                bits.flushToByte()
                let check = adler32(n)
                bits.byte(Int(check >> 24))
                bits.byte(Int(check >> 16))
                bits.byte(Int(check >> 8))
                bits.byte(Int(check))
                written = bits.out - buffer.baseAddress!
            }
        }

        /// Counts one more of the symbol at `index` in the per-symbol arrays.
        @inline(__always) func tally(_ index: Int) {
            freq[index] += 1
            seen[index >> 6] |= 1 << (index & 63)
        }

        /// zlib's lazy parse (deflate_slow) of `window[0..<n]` into `symbols`, tallied; returns the symbol count.
        func findMatches(_ n: Int) -> Int {
            let window = window, head = head, chain = chain, symbols = symbols
            // At most n - 2 hashes go in, so the table is at most half full and every probe ends.
            var slots = 64
            while slots < 2 * n { slots <<= 1 }
            head.update(repeating: 0, count: slots)
            let slotMask = slots - 1
            let slotShift = UInt32(32 - slots.trailingZeroBitCount)

            /// Enters `position` in its hash chain; returns the position that headed the chain before (0: none, as a
            /// head at position 0 is in zlib).
            @inline(__always) func insert(_ position: Int) -> Int {
                let h = UInt32(truncatingIfNeeded: (Int(window[position]) << 10 ^ Int(window[position + 1]) << 5
                    ^ Int(window[position + 2])) & hashMask)
                let key = occupied | h << 16
                var slot = Int(truncatingIfNeeded: (h &* 0x9E37_79B1) >> slotShift)
                var previous = 0
                while true {
                    let entry = head[slot]
                    if entry == 0 { break }
                    if entry & 0xFFFF_0000 == key {
                        previous = Int(entry & 0xFFFF)
                        break
                    }
                    slot = (slot + 1) & slotMask
                }
                head[slot] = key | UInt32(truncatingIfNeeded: position)
                chain[position] = UInt16(truncatingIfNeeded: previous)
                return previous
            }

            var count = 0
            var position = 0
            var matchLength = minMatch - 1, matchStart = 0
            var literalPending = false
            let lastInsert = n - minMatch
            while position < n {
                let candidate = position <= lastInsert ? insert(position) : 0
                let previousLength = matchLength, previousStart = matchStart
                matchLength = minMatch - 1
                if candidate != 0 && previousLength < maxLazy {
                    matchLength = longestMatch(at: position, from: candidate, available: n - position,
                                               best: previousLength, start: &matchStart)
                    if matchLength == minMatch && position - matchStart > tooFar { matchLength = minMatch - 1 }
                }
                if previousLength >= minMatch && matchLength <= previousLength {
                    let distance = position - 1 - previousStart
                    symbols[count] = UInt32(distance << 8 | (previousLength - minMatch))
                    tally(litBase + endOfBlock + 1 + lengthSlot(previousLength - minMatch))
                    tally(distBase + distanceSlot(distance - 1))
                    count += 1
                    let next = position - 1 + previousLength
                    var inside = position + 1
                    while inside < next && inside <= lastInsert {
                        _ = insert(inside)
                        inside += 1
                    }
                    position = next
                    literalPending = false
                    matchLength = minMatch - 1
                } else {
                    if literalPending {
                        literal(window[position - 1], at: count)
                        count += 1
                    }
                    literalPending = true
                    position += 1
                }
            }
            if literalPending {
                literal(window[position - 1], at: count)
                count += 1
            }
            return count
        }

        @inline(__always) func literal(_ byte: UInt8, at index: Int) {
            symbols[index] = UInt32(byte)
            tally(litBase + Int(byte))
        }

        /// zlib's longest_match along the chain from `first`: the best length, `start` moved only if it beats `best`.
        @inline(__always)
        func longestMatch(at position: Int, from first: Int, available: Int, best: Int, start: inout Int) -> Int {
            let most = min(maxMatch, available)
            guard best < most else { return min(best, available) }
            let nice = min(niceLength, available)
            var best = best
            var chainLeft = best >= goodLength ? maxChain >> 2 : maxChain
            var candidate = first
            let scan = window + position
            repeat {
                let match = window + candidate
                if match[best] == scan[best] {
                    var length = 0
                    while length < most {
                        let a = UnsafeRawPointer(scan + length).loadUnaligned(as: UInt64.self)
                        let b = UnsafeRawPointer(match + length).loadUnaligned(as: UInt64.self)
                        if a != b {
                            length += (a ^ b).littleEndian.trailingZeroBitCount >> 3
                            break
                        }
                        length += 8
                    }
                    length = min(length, most)
                    if length > best {
                        best = length
                        start = candidate
                        if length >= nice { break }
                    }
                }
                candidate = Int(chain[candidate])
                chainLeft -= 1
            } while candidate > 0 && chainLeft != 0
            return best
        }

        /// Writes the block's symbols and its end with the given codes.
        func writeSymbols(_ count: Int, lengths: UnsafeMutablePointer<UInt8>, codes: UnsafeMutablePointer<UInt16>,
                          to bits: inout BitWriter) {
            for index in 0..<count {
                let symbol = Int(symbols[index])
                if symbol < 256 {
                    bits.write(Int(codes[litBase + symbol]), Int(lengths[litBase + symbol]))
                    continue
                }
                let lc = symbol & 0xFF, d = symbol >> 8 - 1
                let slot = lengthSlot(lc), code = litBase + endOfBlock + 1 + slot
                let lengthBits = Int(lengths[code])
                bits.write(Int(codes[code]) | (lc - lengthStart(slot)) << lengthBits, lengthBits + lengthExtra(slot))
                let dSlot = distanceSlot(d), dBits = Int(lengths[distBase + dSlot])
                bits.write(Int(codes[distBase + dSlot]) | (d - distanceStart(dSlot)) << dBits,
                           dBits + distanceExtra(dSlot))
            }
            bits.write(Int(codes[litBase + endOfBlock]), Int(lengths[litBase + endOfBlock]))
        }

        /// zlib's Huffman code lengths (build_tree) for the alphabet at `base`, at most `limit` bits; lists the coded.
        func buildLengths(_ base: Int, count: Int, limit: Int) -> Coded {
            let freq = freq + base, lengths = lengths + base, coded = coded + base
            lengths.update(repeating: 0, count: count)
            var size = 0
            for word in 0..<(count + 63) >> 6 {
                var bits = seen[base >> 6 + word]
                while bits != 0 {
                    let symbol = word << 6 | bits.trailingZeroBitCount
                    bits &= bits - 1
                    coded[size] = symbol
                    size += 1
                    heap[size] = HeapEntry(weight: UInt64(freq[symbol]), depth: 0, node: symbol)
                }
            }
            // Like zlib, give a code to at least two symbols: the next ones above a low last symbol, else symbol 0.
            var last = size > 0 ? coded[size - 1] : -1
            while size < 2 {
                let symbol = last < 2 ? last + 1 : 0
                last = max(last, symbol)
                heap[size + 1] = HeapEntry(weight: 1, depth: 0, node: symbol)
                coded[size] = symbol
                size += 1
            }
            if coded[0] > coded[1] { (coded[0], coded[1]) = (coded[1], coded[0]) }

            let removed = mergeNodes(size, firstNode: count)
            setDepths(removed, leaves: count, limit: limit)
            for index in 0..<size { lengths[coded[index]] = UInt8(nodeBits[coded[index]]) }
            return Coded(last: last, count: size)
        }

        /// Huffman merging over zlib's heap of `size` leaves; lists nodes in `order` as removed, returns their count.
        func mergeNodes(_ size: Int, firstNode: Int) -> Int {
            var size = size, k = size / 2
            while k > 0 {
                siftDown(k, size: size)
                k -= 1
            }
            var removed = 0, node = firstNode
            repeat {
                let a = heap[1]
                heap[1] = heap[size]
                size -= 1
                siftDown(1, size: size)
                let b = heap[1]
                order[removed] = a.node
                order[removed + 1] = b.node
                removed += 2
                parent[a.node] = node
                parent[b.node] = node
                heap[1] = HeapEntry(weight: a.weight + b.weight, depth: max(a.depth, b.depth) &+ 1, node: node)
                siftDown(1, size: size)
                node += 1
            } while size >= 2
            order[removed] = heap[1].node
            return removed
        }

        /// zlib's gen_bitlen: each node one bit deeper than its parent, capped at `limit` with zlib's fix-up.
        func setDepths(_ removed: Int, leaves: Int, limit: Int) {
            nodeBits[order[removed]] = 0
            var overflow = 0
            var index = removed
            while index > 0 {
                index -= 1
                let node = order[index]
                var bits = nodeBits[parent[node]] + 1
                if bits > limit {
                    bits = limit
                    overflow += 1
                }
                nodeBits[node] = bits
            }
            guard overflow > 0 else { return }
            // Move leaves down from the deepest level that can take them, then hand out the lengths again,
            // longest to the lightest leaves.
            bitCount.update(repeating: 0, count: maxBits + 1)
            for index in 0..<removed where order[index] < leaves { bitCount[nodeBits[order[index]]] += 1 }
            repeat {
                var bits = limit - 1
                while bitCount[bits] == 0 { bits -= 1 }
                bitCount[bits] -= 1
                bitCount[bits + 1] += 2
                bitCount[limit] -= 1
                overflow -= 2
            } while overflow > 0
            index = 0
            var bits = limit
            while bits > 0 {
                var left = bitCount[bits]
                while left != 0 {
                    let node = order[index]
                    index += 1
                    if node >= leaves { continue }
                    nodeBits[node] = bits
                    left -= 1
                }
                bits -= 1
            }
        }

        /// zlib's sift-down: the entry at slot `k` sinks below each child that precedes it, right child on ties.
        @inline(__always) func siftDown(_ k: Int, size: Int) {
            // zlib's pqdownheap, done Floyd's way: the entry that sinks is usually among the heaviest, so first walk
            // down the lighter children to a leaf, moving each up, then climb back to where the entry belongs. Along
            // that path the keys never decrease, so "stop at the first child the entry precedes" lands on the same
            // place as zlib's walk, ties included; the walk down has no branch that depends on the data, which on
            // a token's unpredictable weights costs less than zlib's two comparisons per level.
            let heap = heap
            let moving = heap[k]
            var hole = k, child = k << 1
            while child < size {
                child += heap[child + 1].precedes(heap[child]) ? 1 : 0
                heap[hole] = heap[child]
                hole = child
                child <<= 1
            }
            if child == size {
                heap[hole] = heap[child]
                hole = child
            }
            while hole > k, moving.precedes(heap[hole >> 1]) {
                heap[hole] = heap[hole >> 1]
                hole >>= 1
            }
            heap[hole] = moving
        }

        /// Canonical codes, bit-reversed for sending, for the `count` ascending symbols in `symbols`.
        func assignCodes(_ lengths: UnsafeMutablePointer<UInt8>, _ symbols: UnsafeMutablePointer<Int>, count: Int,
                         into codes: UnsafeMutablePointer<UInt16>) {
            bitCount.update(repeating: 0, count: maxBits + 1)
            for index in 0..<count { bitCount[Int(lengths[symbols[index]])] += 1 }
            var code = 0
            for bits in 1...maxBits {
                code = (code + bitCount[bits - 1]) << 1
                nextCode[bits] = code
            }
            for index in 0..<count {
                let symbol = symbols[index], length = Int(lengths[symbol])
                codes[symbol] = reversed(nextCode[length], length)
                nextCode[length] += 1
            }
        }

        /// Appends the code lengths of an alphabet up to its last coded symbol to `runs` at `start`; returns the end.
        func appendRuns(_ base: Int, _ tree: Coded, at start: Int) -> Int {
            let lengths = lengths + base, coded = coded + base
            var writer = RunWriter(workspace: self, count: start)
            var index = 0, next = 0
            while index < tree.count {
                let symbol = coded[index], value = lengths[symbol]
                if symbol > next { writer.run(0, symbol - next) }
                var count = 1
                while index + count < tree.count && coded[index + count] == symbol + count
                    && lengths[symbol + count] == value {
                    count += 1
                }
                writer.run(Int(value), count)
                index += count
                next = symbol + count
            }
            return writer.count
        }

        /// Adler-32 of `window[0..<n]`, four bytes a step; the sums fit an Int unreduced for n up to the limit.
        func adler32(_ n: Int) -> UInt32 {
            var a = 1, b = 0, index = 0
            while index + 4 <= n {
                let x0 = Int(window[index]), x1 = Int(window[index + 1])
                let x2 = Int(window[index + 2]), x3 = Int(window[index + 3])
                b += 4 * a + 4 * x0 + 3 * x1 + 2 * x2 + x3
                a += x0 + x1 + x2 + x3
                index += 4
            }
            while index < n {
                a += Int(window[index])
                b += a
                index += 1
            }
            return UInt32((b % 65521) << 16 | (a % 65521))
        }
    }
}
