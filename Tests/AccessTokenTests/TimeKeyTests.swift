import Testing
@testable import AccessToken

/// The cached first link of the HMAC chain is the one a fresh HMAC gives, whatever certificates and seconds come in turn.
@Suite struct TimeKeyTests {
    private func fresh(_ certificate: String, _ issuedAt: UInt32) -> [UInt8] {
        withUnsafeBytes(of: issuedAt.littleEndian) { Crypto.hmacSHA256(key: Array($0), message: Array(certificate.utf8)) }
    }

    private func cached(_ certificate: String, _ issuedAt: UInt32) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            TimeKey.last.key(certificate: certificate, issuedAt: issuedAt, into: out.baseAddress!)
            count = 32
        }
    }

    @Test func eachCertificateAndSecondInTurnGetsItsOwnKey() {
        let a = "5CFd2fd1755d40ecb72977518be15d3b", b = "0123456789abcdef0123456789abcdef"
        let asked: [(String, UInt32)] = [(a, 1_111_111), (a, 1_111_111), (b, 1_111_111), (a, 1_111_111), (a, 1_111_112),
                                         (b, 1_111_112), (b, 1_111_112), (a, 1_111_111)]
        for (certificate, second) in asked {
            #expect(cached(certificate, second) == fresh(certificate, second), "\(certificate) at \(second)")
        }
        #expect(fresh(a, 1_111_111) != fresh(b, 1_111_111))
    }

    @Test func concurrentSignersGetTheRightKeys() async {
        let certificates = ["5CFd2fd1755d40ecb72977518be15d3b", "0123456789abcdef0123456789abcdef"]
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<500 {
                        let certificate = certificates[(task + round) % 2], second = UInt32(round / 50)
                        if cached(certificate, second) != fresh(certificate, second) { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
