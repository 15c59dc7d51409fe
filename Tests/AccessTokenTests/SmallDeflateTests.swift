import CZlib
import SeededRandom
import Testing
@testable import AccessToken

/// SmallDeflate against zlib itself: every output must be the bytes `compress2(..., Z_DEFAULT_COMPRESSION)` writes,
/// and must inflate back to its input.
@Suite struct SmallDeflateTests {
    @Test func officialVectorContentsCompressAsZlibDoes() throws {
        var comparison = Comparison()
        for vector in Vectors.shared.v007 {
            let compressed = try #require(Base64.decode(vector.token.dropFirst(3).utf8))
            let content = try Zlib.inflate(compressed)
            comparison.check(content)
            if vector.parse_only != true {
                #expect(ours(content) == compressed, "\(vector.name)")
                let token = try AccessToken2(parsing: vector.token)
                #expect(try token.build(appCertificate: Vectors.shared.fixtures.app_certificate) == vector.token)
            }
        }
        comparison.expectNoDifferences()
        #expect(comparison.count == Vectors.shared.v007.count)
    }

    /// 4 × 5 000 token contents: random IDs, names, users, roles, times and salts, a quarter with several services.
    /// Over a thousand of them need zlib's fix-up of a code-length tree deeper than 7 bits.
    @Test(arguments: 0..<4)
    func tokenContentsCompressAsZlibDoes(batch: UInt64) throws {
        var random = SplitMix64(seed: 0x70CE_0000 + batch)
        var comparison = Comparison(reference: ResetStream())
        for index in 0..<5_000 {
            let certificate = hexID(&random)
            let token = AccessToken2(
                appID: hexID(&random), issuedAt: random.next(), expire: someSeconds(&random),
                salt: .random(in: 1...99_999_999, using: &random), services: services(&random))
            let info = token.signingInfo()
            var content = ByteWriter()
            content.string(AccessToken2.signature(of: info, appCertificate: certificate, issuedAt: token.issuedAt,
                                                  salt: token.salt))
            content.bytes.append(contentsOf: info)
            let mine = comparison.check(content.bytes)
            // Every 16th also against a fresh compress2, and through the public build.
            if index % 16 == 0 {
                let fresh = zlibCompress(content.bytes)
                #expect(mine == fresh)
                #expect(try token.build(appCertificate: certificate) == "007" + Base64.encode(fresh))
            }
        }
        comparison.expectNoDifferences()
        #expect(comparison.count == 5_000)
    }

    /// 20 000 inputs around the fixed/dynamic boundary: up to 600 bytes drawn from 8 to 256 low or high byte values,
    /// a third with a repeat, so that zlib's choice between fixed and dynamic codes turns on a few bits.
    @Test func inputsNearTheFixedDynamicBoundaryCompressAsZlibDoes() {
        var random = SplitMix64(seed: 0xB0DA)
        var comparison = Comparison(reference: ResetStream())
        for _ in 0..<20_000 {
            let alphabet = 8 + random.below(249), low = random.below(2) == 0
            let length = 1 + random.below(600)
            var bytes = (0..<length).map { _ in
                UInt8(truncatingIfNeeded: (low ? 0 : 256 - alphabet) + random.below(alphabet))
            }
            if random.below(3) == 0, length > 20 {
                let start = random.below(length - 10), size = 3 + random.below(8)
                bytes.insert(contentsOf: bytes[start..<start + size], at: random.below(length))
            }
            comparison.check(bytes)
        }
        comparison.expectNoDifferences()
        #expect(comparison.blockTypes == [.stored, .fixed, .dynamic])
    }

    @Test func everyLengthTo300OfEachKindCompressesAsZlibDoes() {
        var random = SplitMix64(seed: 1)
        var comparison = Comparison()
        for length in 0...300 {
            for kind in Kind.allCases { comparison.check(kind.bytes(length, &random)) }
        }
        comparison.expectNoDifferences()
        #expect(comparison.blockTypes == [.stored, .fixed, .dynamic])
    }

    /// Lengths 301 to the limit; hundreds of length-3 matches here fall to zlib's rule against them beyond 4 KiB.
    @Test(arguments: Kind.allCases)
    func longInputsUpToTheLimitCompressAsZlibDoes(kind: Kind) {
        var random = SplitMix64(seed: 2 + UInt64(kind.rawValue))
        var comparison = Comparison()
        var lengths = [SmallDeflate.limit, SmallDeflate.limit - 1, 4096, 4097]
        for _ in 0..<12 { lengths.append(.random(in: 301...SmallDeflate.limit, using: &random)) }
        for length in lengths { comparison.check(kind.bytes(length, &random)) }
        comparison.expectNoDifferences()
    }

    /// One workspace, long and short inputs in turn: what a longer call left in the hash heads never reaches a later one.
    @Test func aWorkspaceReusedAcrossLengthsDoesNotMixCalls() {
        let workspace = SmallDeflate.Workspace()
        var random = SplitMix64(seed: 4)
        for length in [SmallDeflate.limit, 200, 31, SmallDeflate.limit - 1, 3, 1000, 200, SmallDeflate.limit] {
            let input = Kind.text.bytes(length, &random)
            #expect(input.withUnsafeBufferPointer(workspace.compress) == zlibCompress(input), "\(length) bytes")
        }
    }

    @Test func concurrentCallsEachGetTheirOwnWorkspace() async {
        var random = SplitMix64(seed: 5)
        let inputs = (0..<32).map { Kind.allCases[$0 % Kind.allCases.count].bytes(64 * $0, &random) }
        let expected = inputs.map(zlibCompress)
        let results = await withTaskGroup(of: (Int, [UInt8]).self) { group in
            for (index, input) in inputs.enumerated() {
                group.addTask { (index, ours(input)) }
            }
            var results = [[UInt8]](repeating: [], count: inputs.count)
            for await (index, output) in group { results[index] = output }
            return results
        }
        #expect(results == expected)
    }

    @Test func zlibCompressUsesSmallDeflateUpToTheLimitOnly() throws {
        let small = [UInt8](repeating: 7, count: SmallDeflate.limit)
        #expect(Zlib.compress(small) == ours(small))
        let large = [UInt8](repeating: 7, count: SmallDeflate.limit + 1)
        #expect(Zlib.compress(large) == zlibCompress(large))
        #expect(try Zlib.inflate(Zlib.compress(large)) == large)
    }
}

private func ours(_ bytes: [UInt8]) -> [UInt8] {
    bytes.withUnsafeBufferPointer(SmallDeflate.compress)
}

/// A fresh one-shot zlib `compress2` at the default level, as Agora's builders call it.
private func zlibCompress(_ bytes: [UInt8]) -> [UInt8] {
    var size = compressBound(uLong(bytes.count))
    var out = [UInt8](repeating: 0, count: Int(size))
    let status = compress2(&out, &size, bytes, uLong(bytes.count), Z_DEFAULT_COMPRESSION)
    precondition(status == Z_OK, "compress2 returned \(status)")
    return Array(out.prefix(Int(size)))
}

/// One zlib stream at `compress2`'s settings, reset per input (zlib documents the output as a fresh stream's),
/// so that thousands of comparisons skip setting up 260 KB of state each.
private final class ResetStream {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)

    init() {
        stream.initialize(to: z_stream())
        let status = deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                                   ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 returned \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    func compress(_ bytes: [UInt8]) -> [UInt8] {
        precondition(deflateReset(stream) == Z_OK)
        var out = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(bytes.count))))
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                stream.pointee.next_out = output.baseAddress
                stream.pointee.avail_out = uInt(output.count)
                let status = deflate(stream, Z_FINISH)
                precondition(status == Z_STREAM_END, "deflate returned \(status)")
            }
        }
        return Array(out.prefix(Int(stream.pointee.total_out)))
    }
}

/// Compares inputs one by one, keeping the first few differences and the block types seen.
private struct Comparison {
    enum BlockType: UInt8 { case stored, fixed, dynamic }

    var reference: ResetStream?
    var count = 0
    var differences: [String] = []
    var blockTypes: Set<BlockType> = []

    init(reference: ResetStream? = nil) { self.reference = reference }

    @discardableResult
    mutating func check(_ input: [UInt8]) -> [UInt8] {
        count += 1
        let mine = ours(input), theirs = reference?.compress(input) ?? zlibCompress(input)
        if let type = BlockType(rawValue: mine[2] >> 1 & 3) { blockTypes.insert(type) }
        if mine != theirs, differences.count < 3 {
            differences.append("input of \(input.count) bytes \(input.prefix(600)): zlib \(theirs), ours \(mine)")
        }
        if (try? Zlib.inflate(mine)) != input, differences.count < 3 {
            differences.append("input of \(input.count) bytes \(input.prefix(600)) does not inflate back")
        }
        return mine
    }

    func expectNoDifferences(sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(differences.isEmpty, "\(count) inputs compared: \(differences.joined(separator: "\n"))",
                sourceLocation: sourceLocation)
    }
}

/// Shapes of test input, from incompressible to a single repeated byte.
enum Kind: Int, CaseIterable, Sendable {
    case random, zeros, oneByte, periodic, text, skewed, fewSymbols, echoes

    func bytes(_ length: Int, _ random: inout SplitMix64) -> [UInt8] {
        switch self {
        case .random:
            return (0..<length).map { _ in random.byte() }
        case .zeros:
            return [UInt8](repeating: 0, count: length)
        case .oneByte:
            return [UInt8](repeating: random.byte(), count: length)
        case .periodic:
            let period = (0..<Int.random(in: 1...24, using: &random)).map { _ in random.byte() }
            return (0..<length).map { period[$0 % period.count] }
        case .text:
            var text: [UInt8] = []
            while text.count < length {
                text += words[random.below(words.count)].utf8
                text.append(separators[random.below(separators.count)])
            }
            return Array(text.prefix(length))
        case .skewed:
            return (0..<length).map { _ in UInt8(min(random.next().trailingZeroBitCount, 40)) }
        case .fewSymbols:
            let alphabet = UInt64.random(in: 2...40, using: &random)
            return (0..<length).map { _ in UInt8(random.next() % alphabet) }
        case .echoes:
            var bytes = (0..<length).map { _ in random.byte() }
            guard length > 8 else { return bytes }
            for _ in 0..<(length / 64 + 1) {
                let from = random.below(length - 8), to = from + random.below(length - from)
                for k in 0..<min(3 + random.below(38), length - to, to - from) { bytes[to + k] = bytes[from + k] }
            }
            return bytes
        }
    }
}

private let words = ["the", "token", "channel", "Agora", "uid", "expire", "privilege", "join", "publish", "audio",
                     "video", "stream", "of", "and", "a", "to", "in", "is", "signature", "salt", "RTC", "0", "42",
                     "1111111", "2882341273", "zlib", "deflate", "Huffman", "tree", "block"]
private let separators = Array(" , .\n ".utf8)
private let hexDigits = Array("0123456789abcdefABCDEF".utf8)
private let nameCharacters = Array(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&()+-:;<=.>?@[]^_{}|~,".utf8)

private func text(_ random: inout SplitMix64, from characters: [UInt8], length: Int) -> String {
    var bytes = [UInt8](repeating: 0, count: length)
    for index in 0..<length { bytes[index] = characters[random.below(characters.count)] }
    return String(decoding: bytes, as: UTF8.self)
}

private func hexID(_ random: inout SplitMix64) -> String {
    text(&random, from: hexDigits, length: 32)
}

/// A channel name or account of 1 to `longest` of Agora's 89 characters.
private func name(_ random: inout SplitMix64, upTo longest: Int) -> String {
    text(&random, from: nameCharacters, length: 1 + random.below(longest))
}

private func someSeconds(_ random: inout SplitMix64) -> UInt32 {
    switch random.below(7) {
    case 0: 0
    case 1: 1
    case 2: 600
    case 3: 3600
    case 4: 86_400
    case 5: .random(in: 0...86_400, using: &random)
    default: random.next()
    }
}

private func services(_ random: inout SplitMix64) -> [Service] {
    let user: RTCUser = switch random.below(4) {
    case 0: .uid(0)
    case 1: .uid(.random(in: 1...100_000, using: &random))
    case 2: .uid(random.next())
    default: .account(name(&random, upTo: 255))
    }
    let role: RTCRole = random.below(2) == 0 ? .publisher : .subscriber
    var services = [Service.rtc(channel: name(&random, upTo: 63), user: user, role: role,
                                privilegeExpire: someSeconds(&random))]
    guard random.below(4) == 0 else { return services }
    for _ in 0...random.below(5) {
        var privileges = PrivilegeMap()
        for id in 0...random.below(4) { privileges[UInt16(id + 1)] = someSeconds(&random) }
        let account = name(&random, upTo: 64)
        let service: Service = switch random.below(4) {
        case 0: Service(type: ServiceType.rtm.rawValue, privileges: privileges, detail: .user(account))
        case 1: Service(type: ServiceType.chat.rawValue, privileges: privileges, detail: .user(account))
        case 2: Service(type: ServiceType.fpa.rawValue, privileges: privileges, detail: .none)
        default: Service(type: ServiceType.apaas.rawValue, privileges: privileges,
                         detail: .apaas(room: name(&random, upTo: 64), user: account, role: Int16(random.below(4)) - 1))
        }
        services.append(service)
    }
    return services
}

