import HubProtocol
import Sockets
import TLS

extension HubConnection {
    /// The loop's side of a connection: it feeds the machine events and carries out its actions. Made for the loop on
    /// any thread, then reached on the loop's thread only.
    final class Driver {
        private let trust: TLSTrust
        private let home: HubClientLoop
        private var machine: HubConnectionMachine
        private var link = Link.none
        private var events: (@Sendable (HubLinkEvent) -> Void)?

        /// What the connection holds of the network.
        private enum Link {
            case none
            /// Connecting; the dial keeps the connect's deadline.
            case dialing(Dial)
            /// Connected, until the machine says how the socket is taken (`adopt`).
            case dialed(Socket)
            /// The socket on the loop (through TLS for wss://), which keeps the machine's deadlines.
            case wired(LoopConnection)
            /// No socket: the next try is at `until`.
            case pausing(EventLoop.Timer, until: ContinuousClock.Instant)
        }

        init(address: HubAddress, timing: HubTiming, trust: TLSTrust, home: HubClientLoop) {
            (self.trust, self.home) = (trust, home)
            machine = HubConnectionMachine(address: address, timing: timing)
        }

        var hubName: String? { machine.hubName }

        private var loop: EventLoop { home.loop }

        private var wire: TLS.Wire? {
            if case .wired(let connection) = link { connection.wire } else { nil }
        }

        // MARK: Commands

        func begin(events: @escaping @Sendable (HubLinkEvent) -> Void) {
            guard case .idle = machine.phase else { return }
            self.events = events
            home.clients.value.opened(self)
            perform(machine.open(now: .now))
        }

        func enqueue(_ frame: [UInt8], isVideo: Bool) {
            perform(machine.send(frame, isVideo: isVideo, queued: wire?.queued ?? 0))
        }

        func changeSilence(_ silent: Bool) { machine.setSilent(silent, now: .now) }

        func abandon(_ reason: String) { perform(machine.drop(reason, now: .now)) }

        func closeForGood() {
            perform(machine.close())
            events = nil
            home.clients.value.closed(self)
        }

        /// After every event: the socket waits for what the machine needs (nothing while silent), and the next
        /// deadline is armed.
        func settle() {
            let due = machine.nextDeadline
            switch link {
            case .wired(let connection):
                connection.wait(for: machine.silent ? [] : connection.wire.queued > 0 ? [.read, .write] : .read)
                if let due { connection.arm(at: due) } else { connection.disarm() }
            case .none, .pausing:
                pause(until: due)
            case .dialing, .dialed:
                break
            }
        }

        // MARK: -

        /// Without a socket, waits for `due` (the next try), when there is one.
        private func pause(until due: ContinuousClock.Instant?) {
            if case .pausing(let timer, let until) = link {
                guard until != due else { return }
                loop.cancel(timer)
                link = .none
            }
            guard let due else { return }
            link = .pausing(loop.schedule(at: due) { [self] in
                link = .none
                perform(machine.tick(now: .now))
                settle()
            }, until: due)
        }

        private func dialed(attempt: Int, _ result: Result<Socket, SocketError>) {
            guard machine.awaits(attempt: attempt) else {
                if case .success(let socket) = result { socket.close() }
                return
            }
            switch result {
            case .failure(let error):
                link = .none
                perform(machine.failed(.cannotConnect(error.reason), now: .now))
            case .success(let socket):
                link = .dialed(socket)
                perform(machine.connected(attempt: attempt, now: .now))
            }
            settle()
        }

        private func ready(_ readiness: EventLoop.Readiness) {
            guard !machine.silent, let wire else { return }
            if readiness.writable, let trouble = flush(wire) { return perform(machine.failed(trouble, now: .now)) }
            if readiness.readable { read(wire) }
        }

        private func read(_ wire: TLS.Wire) {
            let now = ContinuousClock.now
            switch wire.receive(scratch: &home.clients.value.scratch) {
            case .nothing:
                if wire.queued > 0, let trouble = flush(wire) { perform(machine.failed(trouble, now: now)) }  // handshake bytes to answer
            case .refused(let failure): perform(machine.failed(.cannotOpenTLS("\(failure)"), now: now))
            case .ended(let bytes) where bytes.isEmpty: perform(machine.ended(now: now))
            case .ended(let bytes), .data(let bytes): perform(machine.received(bytes, now: now))
            case .secured(let bytes): perform(machine.secured(bytes, now: now))
            }
        }

        /// Carries out the machine's actions in order; when one fails, the machine hears of it and the rest, meant for
        /// the connection that just went, are dropped.
        private func perform(_ actions: [HubConnectionMachine.Action]) {
            for action in actions {
                if let trouble = carryOut(action) {
                    return perform(machine.failed(trouble, now: .now))
                }
            }
        }

        /// Does one action; what went wrong, if anything.
        private func carryOut(_ action: HubConnectionMachine.Action) -> HubConnectionMachine.Trouble? {
            switch action {
            case .connect(let address, let attempt):
                let dial = home.dial(address.host, address.port, loop, .now + machine.timing.connectTimeout) { [self] result in
                    dialed(attempt: attempt, result)
                }
                // A dial that failed at once has been answered already.
                if case .none = link, machine.awaits(attempt: attempt) { link = .dialing(dial) }
            case .adopt(let secure):
                guard case .dialed(let socket) = link else { return .broke }
                let wire: TLS.Wire
                do {
                    wire = secure ? TLS.Wire(socket, tls: try TLSSession(context: try TLSContext.shared(trust), host: machine.dialing.host))
                        : TLS.Wire(socket)
                } catch {
                    return .cannotOpenTLS("\(error)")
                }
                link = .wired(LoopConnection(wire, on: loop, ready: { [self] readiness in
                    ready(readiness)
                    settle()
                }, deadline: { [self] in
                    perform(machine.tick(now: .now))
                    settle()
                }))
                guard secure else { return nil }
                do { try wire.start() } catch { return .cannotOpenTLS("\(error)") }
                return machine.silent ? nil : flush(wire)
            case .send(let bytes):
                guard let wire else { return .broke }
                guard wire.queued + bytes.count <= HubConnection.maxQueuedBytes else { return .overfull(queued: wire.queued) }
                do {
                    try wire.queue(bytes)
                } catch {
                    return .tlsBroke("\(error)")
                }
                return machine.silent ? nil : flush(wire)
            case .sendLast(let bytes):
                guard let wire else { return nil }
                try? wire.queue(bytes)
                _ = wire.flush()
            case .release:
                release()
            case .deliver(let event):
                events?(event)
            }
            return nil
        }

        /// Sends what the socket takes now; `.broke` when the hub is gone.
        private func flush(_ wire: TLS.Wire) -> HubConnectionMachine.Trouble? {
            if case .failed = wire.flush() { .broke } else { nil }
        }

        /// Lets go of what the connection holds: the dial cancelled, the socket closed and off the loop, no timer.
        private func release() {
            switch link {
            case .dialing(let dial): dial.cancel()
            case .dialed(let socket): socket.close()
            case .wired(let connection): connection.close()
            case .pausing(let timer, _): loop.cancel(timer)
            case .none: break
            }
            link = .none
        }
    }
}
