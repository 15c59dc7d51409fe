#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AccessToken

/// The pooled salt source: what it hands out is used once, and a forked child does not repeat its parent's pool.
@Suite struct SaltRandomTests {
    @Test func drawsDoNotRepeatAcrossRefills() {
        var source = SaltRandom()
        let words = (0..<2_000).map { _ in source.next() }
        #expect(Set(words).count == words.count)
        #expect((0..<2_000).map { _ in AccessToken2.randomSalt() }.allSatisfy { (1...99_999_999).contains($0) })
    }

    @Test func aForkedChildDrawsOtherWordsThanItsParent() throws {
        var source = SaltRandom()
        _ = source.next()  // the pool is full, with words the child would copy
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let child = fork()
        try #require(child >= 0)
        if child == 0 {
            var words = (0..<8).map { _ in source.next() }
            let written = words.withUnsafeMutableBytes { write(ends[1], $0.baseAddress, $0.count) }
            _exit(written == 64 ? 0 : 1)
        }
        close(ends[1])
        let parentWords = (0..<8).map { _ in source.next() }
        var childWords = [UInt64](repeating: 0, count: 8)
        let read = childWords.withUnsafeMutableBytes { Glibc.read(ends[0], $0.baseAddress, $0.count) }
        close(ends[0])
        var status: Int32 = 0
        waitpid(child, &status, 0)
        #expect(read == 64)
        #expect(status == 0)
        #expect(Set(parentWords).isDisjoint(with: childWords))
    }
}
