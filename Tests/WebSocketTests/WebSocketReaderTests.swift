import SeededRandom
import Testing
import WebSocket

@Suite struct WebSocketReaderTests {
    /// RFC 6455 §5.7: a masked "Hello".
    let maskedHello: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
    let key: (UInt8, UInt8, UInt8, UInt8) = (1, 2, 3, 4)

    func events(_ bytes: [UInt8], role: WebSocketReader.Role = .server, limit: Int = 64 * 1024) throws(WebSocketFailure) -> [WebSocketEvent] {
        var reader = WebSocketReader(role: role, maxMessageBytes: limit)
        reader.append(bytes)
        var out: [WebSocketEvent] = []
        while let event = try reader.next() { out.append(event) }
        return out
    }

    func failure(_ bytes: [UInt8], role: WebSocketReader.Role = .server, limit: Int = 64 * 1024) -> WebSocketFailure? {
        do {
            _ = try events(bytes, role: role, limit: limit)
            return nil
        } catch {
            return error
        }
    }

    /// A frame header and masked payload with FIN and opcode as given (the encoder only writes whole frames).
    func frame(fin: Bool, _ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var bytes = WebSocketFrame.encode(.binary, payload, mask: key)
        bytes[0] = (fin ? 0x80 : 0) | opcode
        return bytes
    }

    @Test func writesTheRFCsMaskedHello() {
        #expect(WebSocketFrame.encode(.text, Array("Hello".utf8), mask: (0x37, 0xFA, 0x21, 0x3D)) == maskedHello)
    }

    @Test func readsTheRFCsMaskedHelloWholeOrByteByByte() throws {
        #expect(try events(maskedHello) == [.text("Hello")])
        var reader = WebSocketReader(role: .server)
        var seen: [WebSocketEvent] = []
        for byte in maskedHello {
            reader.append([byte])
            if let event = try reader.next() { seen.append(event) }
        }
        #expect(seen == [.text("Hello")])
    }

    @Test func aServerRefusesUnmaskedFramesAndAClientMaskedOnes() {
        #expect(failure(WebSocketFrame.encode(.text, Array("Hello".utf8)))?.code == .protocolError)
        #expect(failure(maskedHello, role: .client)?.code == .protocolError)
    }

    @Test func joinsFragmentsWithAPingBetweenThem() throws {
        let bytes = frame(fin: false, 0x1, Array("Hel".utf8)) + frame(fin: true, 0x9, [7]) + frame(fin: true, 0x0, Array("lo".utf8))
        #expect(try events(bytes) == [.ping([7]), .text("Hello")])
    }

    @Test func aCharacterSplitAcrossFragmentsIsValidText() throws {
        let e = Array("é".utf8)
        #expect(try events(frame(fin: false, 0x1, [e[0]]) + frame(fin: true, 0x0, [e[1]])) == [.text("é")])
    }

    @Test func refusesFragmentsOutOfOrder() {
        #expect(failure(frame(fin: true, 0x0, [1]))?.reason.contains("continuation") == true)
        #expect(failure(frame(fin: false, 0x2, [1]) + frame(fin: true, 0x2, [2]))?.reason.contains("before the fragmented") == true)
    }

    @Test func refusesLongOrFragmentedControlFrames() {
        #expect(failure(frame(fin: true, 0x9, Array(repeating: 0, count: 126)))?.code == .protocolError)
        #expect(failure(frame(fin: false, 0x9, [1]))?.reason.contains("fragmented") == true)
    }

    @Test func refusesReservedBitsUnknownOpcodesAndLongerLengthFormsThanNeeded() {
        var reserved = maskedHello
        reserved[0] |= 0x40
        #expect(failure(reserved)?.code == .protocolError)
        #expect(failure(frame(fin: true, 0x3, []))?.reason == "unknown opcode 3")
        #expect(failure([0x82, 0x80 | 126, 0, 5, 1, 2, 3, 4])?.reason.contains("short form") == true)
        #expect(failure([0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 5])?.reason.contains("shorter form") == true)
        #expect(failure([0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 0, 0, 0])?.reason.contains("top bit") == true)
    }

    @Test func anOversizedFrameFailsWith1009OnItsHeaderAlone() {
        // The header announces 2^40 bytes; none of them has arrived.
        let header: [UInt8] = [0x82, 0x80 | 127, 0, 0, 1, 0, 0, 0, 0, 0]
        #expect(failure(header)?.code == .messageTooBig)
        #expect(failure(frame(fin: true, 0x2, Array(repeating: 0, count: 1025)), limit: 1024)?.code == .messageTooBig)
    }

    @Test func fragmentsCountTogetherAgainstTheLimit() throws {
        let half = Array(repeating: UInt8(1), count: 600)
        #expect(failure(frame(fin: false, 0x2, half) + frame(fin: true, 0x0, half), limit: 1024)?.code == .messageTooBig)
        #expect(try events(frame(fin: false, 0x2, half) + frame(fin: true, 0x0, half), limit: 1200) == [.binary(half + half)])
    }

    @Test func invalidUTF8InTextOrACloseReasonFailsWith1007() {
        #expect(failure(frame(fin: true, 0x1, [0xC3, 0x28]))?.code == .invalidData)
        #expect(failure(frame(fin: true, 0x8, [0x03, 0xE8, 0xFF]))?.code == .invalidData)
    }

    @Test func readsCloseFramesAndRefusesCodesNobodyMaySend() throws {
        #expect(try events(WebSocketFrame.close(.normal, reason: "bye", mask: key)) == [.close(.normal, reason: "bye")])
        #expect(try events(frame(fin: true, 0x8, [])) == [.close(.noStatus, reason: "")])
        #expect(failure(frame(fin: true, 0x8, [0x03]))?.code == .protocolError)
        #expect(failure(frame(fin: true, 0x8, [0x03, 0xED]))?.reason == "close code 1005 may not be sent")
    }

    @Test func aFailureStaysFailed() {
        var reader = WebSocketReader(role: .server)
        reader.append(frame(fin: true, 0x3, []) + maskedHello)
        #expect(throws: WebSocketFailure.self) { try reader.next() }
        #expect(throws: WebSocketFailure.self) { try reader.next() }
    }

    @Test func whatOneEndWritesTheOtherReadsAtEveryLengthForm() throws {
        var random = SplitMix64(seed: 6455)
        for count in [0, 1, 125, 126, 127, 65_535, 65_536, 70_000] {
            let payload = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let mask = (UInt8(truncatingIfNeeded: random.next()), UInt8(3), UInt8(5), UInt8(7))
            #expect(try events(WebSocketFrame.encode(.binary, payload, mask: mask), limit: 80_000) == [.binary(payload)])
            #expect(try events(WebSocketFrame.encode(.binary, payload), role: .client, limit: 80_000) == [.binary(payload)])
        }
    }

    @Test func aLongCloseReasonIsCutToFitAControlFrame() throws {
        let bytes = WebSocketFrame.close(.policyViolation, reason: String(repeating: "é", count: 100))
        #expect(bytes.count <= 2 + 125)
        guard case .close(let code, let reason) = try events(bytes, role: .client).first else { return #expect(Bool(false)) }
        #expect(code == .policyViolation)
        #expect(reason == String(repeating: "é", count: 61))
    }
}
