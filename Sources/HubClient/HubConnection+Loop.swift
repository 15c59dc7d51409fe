import HubProtocol
import Sockets
import TLS

// What the loop's thread does with a connection: it feeds the machine events and carries out its actions. Nothing
// here runs on any other thread.
extension HubConnection {
    /// Starts connecting; false when the connection was opened before or closed.
    func begin(events: @escaping @Sendable (HubLinkEvent) -> Void) -> Bool {
        guard case .idle = machine.phase else { return false }
        self.events = events
        perform(machine.open(now: core.clock.now))
        return true
    }

    func enqueue(_ frame: [UInt8], isVideo: Bool) {
        perform(machine.send(frame, isVideo: isVideo, queued: wire?.queued ?? 0))
    }

    func changeSilence(_ silent: Bool) { machine.setSilent(silent, now: core.clock.now) }

    func abandon(_ reason: String) { perform(machine.drop(reason, now: core.clock.now)) }

    func closeForGood() {
        perform(machine.close())
        events = nil
    }

    func connectFinished(attempt: Int, _ result: Result<Socket, SocketError>) {
        guard machine.awaits(attempt: attempt) else {
            if case .success(let socket) = result { socket.close() }
            return
        }
        switch result {
        case .failure(let error): perform(machine.failed(.cannotConnect(error.reason), now: core.clock.now))
        case .success(let socket):
            wire = TLS.Wire(socket)  // plain until the machine's `adopt` says whether TLS wraps it
            perform(machine.connected(attempt: attempt, now: core.clock.now))
        }
    }

    /// After every event: the socket registered with what it waits for (nothing while silent), the next deadline armed.
    func settle() {
        let loop = core.loop
        let fd = wire?.socket.fd
        if let registration, fd != registeredFD {
            loop.deregister(registration)
            self.registration = nil
        }
        if let wire, registration == nil {
            registeredFD = wire.socket.fd
            interest = .read
            registration = loop.register(wire.socket.fd, for: .read) { [self] readiness in
                ready(readiness)
                settle()
            }
        }
        if let registration, let wire {
            let wanted: EventLoop.Interest = machine.silent ? [] : wire.queued > 0 ? [.read, .write] : .read
            if wanted != interest {
                interest = wanted
                loop.change(registration, to: wanted)
            }
        }
        guard let due = machine.nextDeadline else {
            if let (held, _) = timer { loop.cancel(held) }
            timer = nil
            return
        }
        if let (_, armed) = timer, armed <= due { return }
        if let (held, _) = timer { loop.cancel(held) }
        timer = (loop.schedule(at: due) { [self] in
            timer = nil
            perform(machine.tick(now: core.clock.now))
            settle()
        }, due)
    }

    // MARK: -

    private func ready(_ readiness: EventLoop.Readiness) {
        guard !machine.silent, let wire else { return }
        if readiness.writable, let trouble = flush(wire) { return perform(machine.failed(trouble, now: core.clock.now)) }
        if readiness.readable { read(wire) }
    }

    private func read(_ wire: TLS.Wire) {
        let now = core.clock.now
        switch wire.receive(scratch: &core.scratch) {
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
                return perform(machine.failed(trouble, now: core.clock.now))
            }
        }
    }

    /// Does one action; what went wrong, if anything.
    private func carryOut(_ action: HubConnectionMachine.Action) -> HubConnectionMachine.Trouble? {
        switch action {
        case .connect(let address, let attempt):
            core.connect(self, to: address, attempt: attempt, within: machine.timing.connectTimeout)
        case .adopt(let secure):
            guard let plain = wire else { return .broke }
            if secure {
                let secured: TLS.Wire
                do {
                    secured = TLS.Wire(plain.socket, tls: try TLSSession(context: try TLSContext.shared(trust), host: machine.dialing.host))
                    wire = secured
                    try secured.start()
                } catch {
                    return .cannotOpenTLS("\(error)")
                }
                return machine.silent ? nil : flush(secured)
            }
        case .send(let bytes):
            guard let wire else { return .broke }
            guard wire.queued + bytes.count <= Self.maxQueuedBytes else { return .overfull(queued: wire.queued) }
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

    /// Off the loop and closed: the socket, its registration, its deadline.
    private func release() {
        if let registration { core.loop.deregister(registration) }
        registration = nil
        registeredFD = nil
        if let (held, _) = timer { core.loop.cancel(held) }
        timer = nil
        wire?.socket.close()
        wire = nil
    }
}
