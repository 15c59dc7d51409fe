@testable import RedisClient
import Testing

/// `RedisMachine` without a socket: what it asks of its connection, and what each request is answered.
@Suite struct RedisMachineTests {
    typealias Instant = ContinuousClock.Instant
    let start = ContinuousClock.now

    /// The machine and the answers its requests got, by request name.
    final class Run {
        var machine: RedisMachine
        var answers: [String: Result<[RESPValue], RedisError>] = [:]
        var connects: [Int] = []
        var disconnects = 0
        /// What was done, in order: `connect N`, `disconnect`, and each request's name as it was answered.
        var done: [String] = []

        init(_ address: String = "redis://127.0.0.1:6390", deadline: Duration = .seconds(1), maxWaiting: Int = 10_000) throws {
            machine = RedisMachine(address: try RedisAddress(parsing: address), deadline: deadline, maxWaiting: maxWaiting)
        }

        func ask(_ name: String, _ commands: [[String]], at now: Instant) {
            perform(machine.ask(commands, now: now) { [self] in
                answers[name] = $0
                done.append(name)
            })
        }

        func perform(_ actions: [RedisMachine.Action]) {
            for action in actions {
                switch action {
                case .connect(let attempt):
                    connects.append(attempt)
                    done.append("connect \(attempt)")
                case .disconnect:
                    disconnects += 1
                    done.append("disconnect")
                case .answer(let completion, let result): completion(result)
                }
            }
        }

        func received(_ text: String) { perform(machine.received(Array(text.utf8))) }
        var sent: String { String(decoding: machine.takeUnsent(), as: UTF8.self) }
    }

    @Test func whatIsAskedWhileConnectingGoesOutInOneWriteAndAnswersAreMatchedInOrder() throws {
        let run = try Run("redis://:pw@127.0.0.1:6390/2")
        run.ask("first", [["GET", "a"]], at: start)
        run.ask("second", [["GET", "b"], ["GET", "c"]], at: start)
        #expect(run.connects == [1], "one connect for both")
        #expect(run.sent.isEmpty, "nothing goes before the connection is there")
        run.machine.connected(attempt: 1)
        #expect(run.sent == "*2\r\n$4\r\nAUTH\r\n$2\r\npw\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n"
                + "*2\r\n$3\r\nGET\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\n*2\r\n$3\r\nGET\r\n$1\r\nc\r\n")
        run.received("+OK\r\n+OK\r\n$1\r\nA\r\n$-1\r")
        #expect(try run.answers["first"]?.get() == [.bulk(Array("A".utf8))])
        #expect(run.answers["second"] == nil, "half its answers are in")
        run.received("\n-ERR no\r\n")
        #expect(try run.answers["second"]?.get() == [.bulk(nil), .error("ERR no")])
        #expect(run.machine.nextDeadline == nil)
        run.ask("third", [["PING"]], at: start)
        #expect(run.connects == [1] && run.sent == "*1\r\n$4\r\nPING\r\n", "the open connection is used")
    }

    @Test func aBrokenAnswerFailsEveryWaitingRequestInWordsAndTheNextConnectsAgain() throws {
        let run = try Run()
        run.ask("first", [["GET", "a"]], at: start)
        run.ask("second", [["GET", "b"]], at: start)
        run.machine.connected(attempt: 1)
        _ = run.sent
        run.received("?what\r\n")
        for name in ["first", "second"] {
            #expect(run.answers[name] == .failure(RedisError(
                description: "redis://127.0.0.1:6390 sent what is not RESP: a value starting with byte 0x3f, not one of + - : $ *")))
        }
        #expect(run.disconnects == 1)
        run.ask("third", [["PING"]], at: start)
        #expect(run.connects == [1, 2])
        run.perform(run.machine.failed(attempt: 1, "stale"))
        #expect(run.answers["third"] == nil, "the first attempt's news is stale")
        run.perform(run.machine.failed(attempt: 2, "Connection refused"))
        #expect(run.answers["third"] == .failure(RedisError(description: "cannot connect to redis://127.0.0.1:6390: Connection refused")))
    }

    @Test func aRequestNotAnsweredWithinTheDeadlineFailsWithEveryOtherAndAnswersToNothingAskedAreRefused() throws {
        let run = try Run(deadline: .milliseconds(300))
        run.ask("first", [["GET", "a"]], at: start)
        run.machine.connected(attempt: 1)
        run.ask("second", [["GET", "b"]], at: start + .milliseconds(200))
        #expect(run.machine.nextDeadline == start + .milliseconds(300))
        run.perform(run.machine.tick(now: start + .milliseconds(299)))
        #expect(run.answers.isEmpty)
        run.perform(run.machine.tick(now: start + .milliseconds(300)))
        #expect(run.answers["first"] == .failure(RedisError(description: "redis://127.0.0.1:6390 did not answer within 0.3 seconds")))
        #expect(run.answers["second"] == run.answers["first"])
        #expect(run.disconnects == 1 && run.machine.phase == .idle)

        let late = try Run()
        late.ask("only", [["PING"]], at: start)
        late.machine.connected(attempt: 1)
        late.received("+PONG\r\n+PONG\r\n")
        #expect(try late.answers["only"]?.get() == [.simple("PONG")])
        #expect(late.disconnects == 1, "an answer to nothing asked breaks the connection")
        #expect(late.done == ["connect 1", "disconnect", "only"], "dropped before the answer's completion may ask again")
    }

    @Test func aRefusedAUTHFailsTheRequestsWithoutThePassword() throws {
        let run = try Run("redis://:hunter2@127.0.0.1:6390")
        run.ask("first", [["GET", "a"]], at: start)
        run.machine.connected(attempt: 1)
        run.received("-ERR unknown command 'AUTH', with args beginning with: 'hunter2' \r\n-NOAUTH\r\n")
        #expect(run.answers["first"] == .failure(RedisError(description:
            "redis://127.0.0.1:6390 refused the connection's setup: ERR unknown command 'AUTH', with args beginning with: (not shown)")))
    }

    @Test func pastTheBoundOnWaitingCommandsARequestIsRefusedAtOnce() throws {
        let run = try Run(maxWaiting: 3)
        run.ask("first", [["GET", "a"], ["GET", "b"]], at: start)
        run.ask("second", [["GET", "c"], ["GET", "d"]], at: start)
        #expect(run.answers["second"] == .failure(RedisError(
            description: "2 commands already wait for redis://127.0.0.1:6390; this one was not sent, try again later")))
        run.ask("third", [["GET", "e"]], at: start)
        #expect(run.answers["third"] == nil)
    }
}
