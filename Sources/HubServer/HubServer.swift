import AccessToken
import AgoraVocabulary
import HTTP1
import HubProtocol
import PrintableText
import Sockets
import WebServer
import WebSocket

/// The hub at `tokencall serve`'s `/hub`: channels of real clients, each join and renewal checked with the
/// rules the engine applies too (`TokenRejection.check`, in AgoraVocabulary) against the server's App Certificate,
/// presence told to the others, token life enforced, video forwarded within limits. It runs on its WebSocket host's one thread, which makes every
/// call to it, one at a time; that is what makes it safe to share (`@unchecked Sendable`) without locks.
public final class HubServer: WebSocketService, @unchecked Sendable {
    /// The limits of the endpoint a hub is served at: the WebSocket host's, with the protocol's silence limit.
    public static let endpointLimits = WebSocketLimits(silenceLimit: HubSilence.limit)

    public struct Configuration: Sendable {
        public var appID: String
        public var appCertificate: String
        /// Unix time now, in seconds; tests pass a time they move.
        public var unixTime: @Sendable () -> Double
        /// How long before a token's end the client is told (`tokenPrivilegeWillExpire`).
        public var willExpireLead: Duration = AgoraTokenTiming.willExpireLead
        /// A connection out of any channel this long is closed (1008): a client without a valid token holds no
        /// connection for long.
        public var outsideLimit: Duration = .seconds(60)
        /// One owner per channel across hubs (`serve --redis`); nil: this hub serves every channel asked of it.
        public var leases: (any ChannelLeases)?

        public init(appID: String, appCertificate: String, unixTime: @escaping @Sendable () -> Double) {
            self.appID = appID
            self.appCertificate = appCertificate
            self.unixTime = unixTime
        }
    }

    /// A user in a channel.
    struct Member {
        let channel: String
        let uid: UInt32
        let account: String?
        var role: AgoraClientRole
        /// When the token's join privilege ends (unix seconds), and whether the client was told it is near.
        var expiresAt: Int64
        var warned = false

        var peer: HubPeer { HubPeer(uid: uid, account: account) }
    }

    /// A join let in by its token, for a channel whose lease is being claimed.
    struct Admission {
        let join: HubJoin
        let token: AgoraToken
    }

    /// One open connection: the channel its URL was routed by (`/hub?channel=`), and whether its user is in a channel.
    struct Connection {
        enum Phase {
            /// Not in a channel (not yet, refused, left, put out) since this unix time.
            case outside(since: Double)
            /// Its join waits for the channel's lease; out of any channel since this unix time.
            case claiming(Admission, since: Double)
            case inChannel(Member)
        }

        let route: String?
        var phase: Phase
        /// What it may still send, kept from its opening to its end: leaving and joining again renews none of them.
        var video, messages, presence: Allowance

        init(route: String?, now: Double) {
            self.route = route
            phase = .outside(since: now)
            (video, messages, presence) = (Allowance(.video, now: now), Allowance(.messages, now: now), Allowance(.presence, now: now))
        }

        var member: Member? { if case .inChannel(let member) = phase { member } else { nil } }
    }

    let config: Configuration
    private var outlet: (any WebSocketOutlet)?
    private var wake: @Sendable () -> Void = {}
    private var connections: [WebSocketClientID: Connection] = [:]
    /// Each channel's users by uid.
    private var channels: [String: [UInt32: WebSocketClientID]] = [:]
    /// An account in a channel: the uid it was given and how many members (connections in a channel) hold it.
    struct AccountUse {
        let uid: UInt32
        var members: Int
    }

    /// The accounts in some channel, each with its uid; an account in none is forgotten, so there are never more
    /// than members.
    private(set) var accounts: [String: AccountUse] = [:]
    /// The same table by uid, so that no uid is assigned that an account holds.
    private var accountsByUid: [UInt32: String] = [:]
    /// The uid assigned last (not private: tests move it to see the count go round).
    var lastAssignedUid: UInt32 = 1_000_000_000
    /// When `fireDue` next has something to do (a warning, a token's end, a connection out of a channel too long),
    /// unix seconds, or earlier: a change plans its own connection's deadline alone (`plan`), never a scan of all.
    private var nextDeadline: Double?
    /// A channel's lease (with `leases` only): claimed and awaited by the connections waiting to join it, or held.
    enum Lease: Equatable {
        case claiming(waiting: [WebSocketClientID])
        case held
    }

    /// The renewal of the held leases: idle (none held), due at a unix time, or sent and awaited.
    enum Renewal: Equatable {
        case idle
        case due(at: Double)
        /// Sent at `at`; the next is due at `next`, once this one is answered.
        case sent(at: Double, next: Double)
    }

    private var leases: [String: Lease] = [:]
    private var renewal = Renewal.idle
    /// When the store last renewed every lease held.
    private var lastRenewed: Double = 0

    /// How long a stopping hub waits for the store to take its leases back.
    static let releaseLimit = Duration.milliseconds(500)

    public init(_ config: Configuration) {
        self.config = config
    }

    /// Tells the hub that its time moved (tests move it by hand); it acts on what is due.
    public func timeChanged() { wake() }

    // MARK: WebSocketService

    public func start(outlet: any WebSocketOutlet, wake: @escaping @Sendable () -> Void) {
        self.outlet = outlet
        self.wake = wake
        if let loop = outlet.loop { config.leases?.start(on: loop) }
    }

    /// Refuses a URL whose channel a balancer and the hub could read differently (`ChannelRoute`).
    public func admit(_ request: HTTPRequest) -> String? {
        if case .failure(let refusal) = ChannelRoute.read(target: request.target) { return refusal.message }
        return nil
    }

    public func opened(_ client: WebSocketClientID, address: String, query: [String: String]) {
        // Admitted, so the one `channel` parameter decodes to itself.
        let now = config.unixTime()
        connections[client] = Connection(route: query["channel"], now: now)
        plan(now + outsideSeconds)
    }

    public func received(_ message: WebSocketMessage, from client: WebSocketClientID) {
        guard let connection = connections[client] else { return }
        let member = connection.member
        switch message {
        case .binary(let frame):
            forwardVideo(frame, from: client, member)
        case .text(let text):
            guard take(\.messages, client) else { return refuseOverRate(.messages, "messages", client) }
            let request: HubRequest
            do { request = try HubRequest(json: text) } catch {
                return send(.error(error.description), to: client)
            }
            switch request {
            case .join(let join):
                guard take(\.presence, client) else { return refuseOverRate(.presence, "joins and role changes", client) }
                self.join(join, client: client, on: connection)
            case .renew(let token): renew(token, client: client, member)
            case .setRole(let role):
                guard take(\.presence, client) else { return refuseOverRate(.presence, "joins and role changes", client) }
                setRole(role, client: client, member)
            case .leave:
                if case .claiming(_, let since) = connection.phase {
                    connections[client]?.phase = .outside(since: since)
                    return send(stateChanged(.disconnected, .reasonLeaveChannel), to: client)
                }
                guard let member else { return send(.error("not in a channel; nothing to leave"), to: client) }
                remove(client, member, peersHear: .quit)
                send(stateChanged(.disconnected, .reasonLeaveChannel), to: client)
            case .ping:
                break  // heard, which is all it is for
            }
        }
    }

    public func closed(_ client: WebSocketClientID, _ end: WebSocketEnd) {
        guard let connection = connections.removeValue(forKey: client) else { return }
        if let member = connection.member {
            switch end {
            case .closedByClient: remove(client, member, peersHear: .quit)
            case .silent(let silence): remove(client, member, peersHear: .dropped, silentFor: silence)
            case .lost, .closedByHost: remove(client, member, peersHear: .dropped)
            }
        }
    }

    public func tick() -> Duration? {
        let now = config.unixTime()
        if let due = nextDeadline, now >= due { fireDue(now) }
        // A wall clock gone back puts off no renewal: leases age on the store's clock, not this one.
        if case .due(let at) = renewal, now >= at || now < lastRenewed { renewLeases(now) }
        var renewalDue: Double? { if case .due(let at) = renewal { at } else { nil } }
        let next = [nextDeadline, renewalDue].compactMap { $0 }.min()
        return next.map { .milliseconds(Int64((($0 - now) * 1000).rounded(.up))) }
    }

    /// Gives back every lease (those being claimed too) before the host closes the connections with 1001, so that their
    /// clients, reconnecting at once, find their channels free on whichever hub the balancer picks; waits for the store
    /// for `releaseLimit` at most. The joins still waiting hear the 1001 with everyone else.
    public func stopping() {
        guard let store = config.leases else { return }
        // Finished even with none held now: a channel emptied in the last turn has its release still to go out.
        defer { store.finish(within: Self.releaseLimit) }
        guard !leases.isEmpty else { return }
        let channels = Array(leases.keys)
        let held = heldChannels.count
        (leases, renewal) = ([:], .idle)
        store.release(channels)
        outlet?.log("hub gave back \(held) channel leases: stopping")
    }

    // MARK: Requests

    /// Takes one of what the client may do from its allowance; false when it has none left now.
    private func take(_ allowance: WritableKeyPath<Connection, Allowance>, _ client: WebSocketClientID) -> Bool {
        connections[client]?[keyPath: allowance].take(now: config.unixTime()) == true
    }

    private func refuseOverRate(_ rate: HubRate, _ what: String, _ client: WebSocketClientID) {
        send(.error("too many \(what): a connection may send \(rate.burst) at once, then one every \(rate.interval); "
                    + "this one was not done, send it again later"), to: client)
    }

    private func join(_ join: HubJoin, client: WebSocketClientID, on connection: Connection) {
        let since: Double
        switch connection.phase {
        case .inChannel(let current):
            return send(.error("already in channel \(current.channel.escapedForPrinting) as uid \(current.uid); leave first"), to: client)
        case .claiming(let admission, _):
            return send(.error("already joining channel \(admission.join.channel.escapedForPrinting); wait for its answer"), to: client)
        case .outside(let outsideSince):
            since = outsideSince
        }
        if let route = connection.route, route != join.channel {
            return send(.error("this connection was opened for channel \(route.escapedForPrinting) (/hub?channel=); "
                               + "open another for \(join.channel.escapedForPrinting)"), to: client)
        }
        if let refusal = refusal(of: join) { return refuse(client, joining: join.channel, refusal) }
        let now = config.unixTime()
        let token: AgoraToken
        switch TokenRejection.check(join.token, appId: config.appID, appCertificate: config.appCertificate, channel: join.channel,
                                    user: join.user, unixNow: now) {
        case .failure(let rejection):
            return refuse(client, joining: join.channel, rejection)
        case .success(let accepted?):
            token = accepted
        case .success(nil):
            return  // not reached: with the hub's certificate, the check refuses a missing token
        }
        let admission = Admission(join: join, token: token)
        guard let store = config.leases, leases[join.channel] != .held else { return admit(admission, client: client, now: now) }
        connections[client]?.phase = .claiming(admission, since: since)
        if case .claiming(let waiting) = leases[join.channel] {
            // Once each: a connection that left and joined again while the claim waits is let in once.
            if !waiting.contains(client) { leases[join.channel] = .claiming(waiting: waiting + [client]) }
        } else {
            leases[join.channel] = .claiming(waiting: [client])
            store.claim(join.channel) { [self] claim in claimed(join.channel, claim) }
        }
    }

    /// Lets the join in: the channel is this hub's.
    private func admit(_ admission: Admission, client: WebSocketClientID, now: Double) {
        let (join, token) = (admission.join, admission.token)
        let (uid, account) = assignUid(join.user, in: join.channel)
        if let earlier = channels[join.channel]?[uid], let holder = connections[earlier]?.member {
            // One uid, two users (an integer uid asked for that an account holds here, or the other way round): the
            // one joining is refused, whoever is in stays.
            guard holder.account == account else {
                log(client, "refused a join of \(join.channel.escapedForPrinting): uid \(uid) is another user's in the channel")
                return send(.connectionStateChanged(state: .failed, reason: .reasonRejectedByServer,
                                                    error: .joinChannelRejected), to: client)
            }
            log(earlier, "pushed out of \(join.channel.escapedForPrinting) by the same user (uid \(uid)) joining again")
            remove(earlier, holder, peersHear: .quit)
            send(stateChanged(.failed, .sameUidLogin), to: earlier)
        }
        let member = Member(channel: join.channel, uid: uid, account: account, role: join.role, expiresAt: token.joinDeadline)
        let present = (channels[join.channel] ?? [:]).values.compactMap { connections[$0]?.member }.filter { $0.role == .broadcaster }
        connections[client]?.phase = .inChannel(member)
        outlet?.prove(client, true)
        channels[join.channel, default: [:]][uid] = client
        if let account {
            accounts[account, default: AccountUse(uid: uid, members: 0)].members += 1
            accountsByUid[uid] = account
        }
        log(client, "joined \(join.channel.escapedForPrinting) as uid \(uid)")
        send(.joined(channel: join.channel, uid: uid, role: join.role, expiresAt: member.expiresAt,
                     users: present.map(\.peer).sorted { $0.uid < $1.uid }), to: client)
        if member.role == .broadcaster { send(.userJoined(member.peer), toOthersIn: member.channel, except: client) }
        fireDue(client, now)
    }

    private func refuse(_ client: WebSocketClientID, joining channel: String, _ rejection: TokenRejection) {
        log(client, "refused a join of \(channel.escapedForPrinting): \(rejection.reason.name)")
        send(notice(for: rejection), to: client)
    }

    /// The client is out of the channel, or not let in, for this reason.
    private func notice(for rejection: TokenRejection) -> HubNotice {
        .connectionStateChanged(state: rejection.state, reason: rejection.reason, error: rejection.error)
    }

    private func stateChanged(_ state: AgoraConnectionState, _ reason: AgoraConnectionChangedReason) -> HubNotice {
        .connectionStateChanged(state: state, reason: reason, error: nil)
    }

    /// What Agora refuses before it looks at the token: another App ID, a channel name or account it does not accept.
    private func refusal(of join: HubJoin) -> TokenRejection? {
        if let appId = join.appId, appId != config.appID { return .invalidAppId }
        do throws(TokenError) {
            try AgoraID.validateChannelName(join.channel)
            if case .account(let account) = join.user { try AgoraID.validateAccount(account) }
        } catch {
            if case .invalidAccount = error { return .invalidAccount }
            return .invalidChannelName
        }
        return nil
    }

    /// The uid a join is in the channel as: the one asked for, the account's while it is in a channel, or a new
    /// one for uid 0 or an account in none.
    private func assignUid(_ user: RTCUser, in channel: String) -> (UInt32, String?) {
        switch user {
        case .uid(0): (freeUid(in: channel), nil)
        case .uid(let uid): (uid, nil)
        case .account(let account): (accounts[account]?.uid ?? freeUid(in: channel), account)
        }
    }

    /// The next uid, counting up from 1000000001 and round again, that nobody in the channel and no account holds
    /// (there are never more of those than members, so there is always one).
    private func freeUid(in channel: String) -> UInt32 {
        repeat {
            lastAssignedUid = lastAssignedUid == UInt32.max ? 1_000_000_001 : lastAssignedUid + 1
        } while channels[channel]?[lastAssignedUid] != nil || accountsByUid[lastAssignedUid] != nil
        return lastAssignedUid
    }

    private func renew(_ token: String, client: WebSocketClientID, _ member: Member?) {
        guard var member else { return send(.renewTokenResult(.failure, expiresAt: nil), to: client) }
        let user: RTCUser = member.account.map(RTCUser.account) ?? .uid(member.uid)
        switch TokenRejection.check(token, appId: config.appID, appCertificate: config.appCertificate, channel: member.channel,
                                    user: user, unixNow: config.unixTime()) {
        case .failure(let rejection):
            send(.renewTokenResult(rejection.renewCode, expiresAt: nil), to: client)
        case .success(let accepted):
            member.expiresAt = accepted?.joinDeadline ?? member.expiresAt
            member.warned = false
            connections[client]?.phase = .inChannel(member)
            send(.renewTokenResult(.success, expiresAt: member.expiresAt), to: client)
            fireDue(client, config.unixTime())
        }
    }

    private func setRole(_ role: AgoraClientRole, client: WebSocketClientID, _ member: Member?) {
        guard var member else { return send(.error("not in a channel; send the role with join"), to: client) }
        guard role != member.role else { return }
        let old = member.role
        member.role = role
        connections[client]?.phase = .inChannel(member)
        send(.clientRoleChanged(old: old, new: role), to: client)
        switch role {
        case .broadcaster: send(.userJoined(member.peer), toOthersIn: member.channel, except: client)
        case .audience:
            send(.userOffline(uid: member.uid, reason: .becomeAudience), toOthersIn: member.channel, except: client)
        }
    }

    // MARK: Ownership

    /// The store answered a channel's claim: the joins waiting for it (those still connected and waiting) go in, or
    /// are closed with the hub's redirect (4302, the owner's address) or, the store not answering in time, 4503: never
    /// a second copy of a channel another hub serves.
    private func claimed(_ channel: String, _ claim: ChannelClaim) {
        guard let store = config.leases, case .claiming(let waiting) = leases[channel] else { return }
        let joining = waiting.compactMap { client -> (WebSocketClientID, Admission)? in
            guard case .claiming(let admission, _)? = connections[client]?.phase, admission.join.channel == channel else { return nil }
            return (client, admission)
        }
        leases[channel] = nil
        let now = config.unixTime()
        switch claim {
        case .ours:
            leases[channel] = .held
            if renewal == .idle {
                lastRenewed = now
                renewal = .due(at: now + renewEvery(store))
            }
            for (client, admission) in joining { admit(admission, client: client, now: now) }
            if channels[channel] == nil {  // everyone who waited went away meanwhile
                leases[channel] = nil
                store.release([channel])
            }
        case .elsewhere(let owner):
            for (client, _) in joining {
                log(client, "redirected: channel \(channel.escapedForPrinting) lives on \(owner.escapedForPrinting)")
                outlet?.close(client, code: WebSocketCloseCode(rawValue: HubCloseCode.redirect), reason: owner)
            }
        case .unknown(let why):
            for (client, _) in joining {
                log(client, "closed \(HubCloseCode.ownershipUnknown): cannot tell who owns \(channel.escapedForPrinting): \(why.escapedForPrinting)")
                outlet?.close(client, code: WebSocketCloseCode(rawValue: HubCloseCode.ownershipUnknown),
                              reason: "the hub cannot tell which hub owns the channel now; try again later")
            }
        }
    }

    private func renewEvery(_ leases: any ChannelLeases) -> Double {
        let (seconds, attoseconds) = leases.leaseDuration.components
        return (Double(seconds) + Double(attoseconds) / 1e18) / 3
    }

    /// The channels whose lease this hub holds (not those whose claim is still awaited).
    private var heldChannels: [String] { leases.filter { $0.value == .held }.map(\.key) }

    /// Sends the renewal of the held leases, unless one is awaited already.
    private func renewLeases(_ now: Double) {
        guard let store = config.leases else { return }
        let held = heldChannels
        guard !held.isEmpty else { renewal = .idle; return }
        renewal = .sent(at: now, next: now + renewEvery(store))
        store.renew(held) { [self] result in renewed(result) }
    }

    /// The store answered a renewal: a channel found to be another's, or every channel once the store has not answered
    /// for a lease's whole life (another hub may hold them by now), is given up: its clients are closed with 1001 and
    /// reconnect at once to wherever it lives now.
    private func renewed(_ result: Result<[String], LeaseStoreError>) {
        guard let store = config.leases, case .sent(let sentAt, let next) = renewal else { return }
        renewal = .due(at: next)
        let lost: [String]
        let (logged, told): (String, String)
        switch result {
        case .success(let channels):
            lastRenewed = sentAt
            lost = channels
            (logged, told) = ("its clients go where it lives now", "the channel moved to another hub; connect again")
        case .failure(let error):
            // With the clock gone back since the last renewal, how long ago that was is unknown: given up too.
            let now = config.unixTime()
            guard now - lastRenewed >= renewEvery(store) * 3 || now < lastRenewed else {
                outlet?.log("hub could not renew its channel leases: \(error.description.escapedForPrinting)")
                return
            }
            lost = heldChannels
            (logged, told) = ("the store has not renewed it for \(store.leaseDuration) (\(error.description.escapedForPrinting)); "
                              + "its clients go where it lives now",
                              "the hub cannot reach the store of channel owners; connect again")
        }
        for channel in lost where leases[channel] == .held {
            leases[channel] = nil
            outlet?.log("hub lost the lease of \(channel.escapedForPrinting): \(logged)")
            for client in (channels[channel] ?? [:]).values {
                outlet?.close(client, code: .goingAway, reason: told)
            }
        }
    }

    // MARK: Membership and time

    /// Takes the member out of its channel; the others hear it went offline for `reason` if they could see it.
    private func remove(_ client: WebSocketClientID, _ member: Member, peersHear reason: AgoraUserOfflineReason,
                        silentFor silence: Duration = .zero) {
        let now = config.unixTime()
        if connections[client] != nil {
            connections[client]?.phase = .outside(since: now)
            outlet?.prove(client, false)
            plan(now + outsideSeconds)
        }
        channels[member.channel]?[member.uid] = nil
        if channels[member.channel]?.isEmpty == true {
            channels[member.channel] = nil
            if let store = config.leases, leases[member.channel] == .held {
                leases[member.channel] = nil
                store.release([member.channel])
            }
        }
        if let account = member.account, let use = accounts[account] {
            if use.members > 1 {
                accounts[account]?.members -= 1
            } else {
                accounts[account] = nil
                accountsByUid[use.uid] = nil
            }
        }
        if member.role == .broadcaster {
            send(.userOffline(uid: member.uid, reason: reason, silence: silence), toOthersIn: member.channel, except: client)
        }
    }

    /// Warns of tokens near their end, puts out the users whose token ended and closes connections out of any channel
    /// too long; finds the next deadline.
    private func fireDue(_ now: Double) {
        nextDeadline = nil
        for client in connections.keys { fireDue(client, now) }
    }

    /// What `fireDue` does, for one connection; its next deadline planned.
    private func fireDue(_ client: WebSocketClientID, _ now: Double) {
        guard let connection = connections[client] else { return }
        switch connection.phase {
        case .outside(let since), .claiming(_, let since):
            guard now >= since + outsideSeconds else { return plan(since + outsideSeconds) }
            log(client, "closed 1008: out of any channel for \(config.outsideLimit)")
            outlet?.close(client, code: .policyViolation, reason: "out of any channel for \(config.outsideLimit); connect again to join")
            connections[client] = nil
        case .inChannel(var member):
            let end = Double(member.expiresAt)
            if now >= end {
                log(client, "token ended: out of \(member.channel.escapedForPrinting)")
                remove(client, member, peersHear: .quit)
                return send(notice(for: .expired), to: client)
            }
            let lead = Double(config.willExpireLead.components.seconds)
            if !member.warned, now >= end - lead {
                member.warned = true
                connections[client]?.phase = .inChannel(member)
                send(.tokenPrivilegeWillExpire(expiresAt: member.expiresAt), to: client)
            }
            plan(member.warned ? end : end - lead)
        }
    }

    /// `Config.outsideLimit` in the unix seconds deadlines are kept in.
    private var outsideSeconds: Double { Double(config.outsideLimit.components.seconds) }

    /// `fireDue` runs at `due` at the latest.
    private func plan(_ due: Double) { nextDeadline = min(nextDeadline ?? due, due) }

    // MARK: Video

    /// Forwards a frame the format allows (read whole: the others' clients would take a broken one for the hub
    /// breaking the protocol); a broken one closes its sender.
    private func forwardVideo(_ frame: [UInt8], from client: WebSocketClientID, _ member: Member?) {
        do { try HubVideoFrame.check(frame) } catch {
            let code: WebSocketCloseCode = frame.count > HubVideoFrame.maxBytes ? .messageTooBig : .policyViolation
            log(client, "closed \(code.rawValue): \(error)")
            outlet?.close(client, code: code, reason: error.description)
            return
        }
        // Before joining, and as audience, there is nobody to send to; over the rate, the frame is dropped.
        guard let member, member.role == .broadcaster, take(\.video, client) else { return }
        outlet?.send(binary: HubVideoFrame.stamped(frame, uid: member.uid), to: others(in: member.channel, except: client))
    }

    // MARK: Sending

    private func others(in channel: String, except client: WebSocketClientID) -> [WebSocketClientID] {
        (channels[channel] ?? [:]).values.filter { $0 != client }
    }

    private func send(_ notice: HubNotice, to client: WebSocketClientID) {
        outlet?.send(text: notice.json, to: [client])
    }

    private func send(_ notice: HubNotice, toOthersIn channel: String, except client: WebSocketClientID) {
        outlet?.send(text: notice.json, to: others(in: channel, except: client))
    }

    private func log(_ client: WebSocketClientID, _ what: String) {
        outlet?.log("hub \(client) \(what)")
    }
}
