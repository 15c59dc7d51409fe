import AccessToken
import AgoraVocabulary
import HubProtocol
import PrintableText
import Sockets
import WebServer
import WebSocket

/// What the hub has its host do, in order: the adapter (`HubServer`) carries each out on the outlet.
enum HubOutput: Equatable {
    /// A notice for these clients, written once for them all.
    case notice(HubNotice, to: [WebSocketClientID])
    /// A video frame, stamped with its sender's uid, for these clients.
    case video([UInt8], to: [WebSocketClientID])
    /// A close frame, then the connection's end.
    case close(WebSocketClientID, WebSocketCloseCode, reason: String)
    /// Whether the client has shown it is one (in a channel): see `WebSocketOutlet.prove`.
    case prove(WebSocketClientID, Bool)
    case log(String)
}

/// The hub's decisions, without sockets: channels of real clients, each join and renewal checked with the rules the
/// engine applies too (`TokenRejection.check`, in AgoraVocabulary) against the server's App Certificate, presence told
/// to the others, token life enforced, video forwarded within limits. Each call returns what the host is to do
/// (`HubOutput`); its deadlines sit on a heap, on one time (`Configuration.elapsed`).
final class HubCore {
    typealias Configuration = HubServer.Configuration

    /// A user in a channel.
    struct Member {
        let channel: String
        let uid: UInt32
        let account: String?
        var role: AgoraClientRole
        /// When the token's join privilege ends, unix seconds (`HubCore.onHubTime` puts it on the hub's time).
        var expiresAt: Int64
        var warned = false
        /// Its audio and video as it last told them (`HubMedia.untold` for a client that does not tell them).
        var media: HubMedia
        /// Whether it told its states with `join`, and so reads the others' (`userMedia`).
        let hearsMedia: Bool

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
            /// Not in a channel (not yet, refused, left, put out) since then.
            case outside(since: Duration)
            /// Its join waits for the channel's lease; out of any channel since then.
            case claiming(Admission, since: Duration)
            case inChannel(Member)
        }

        let route: String?
        var phase: Phase
        /// What it may still send, kept from its opening to its end: leaving and joining again renews none of them.
        var video, messages, presence, media: Allowance

        init(route: String?, now: Duration) {
            self.route = route
            phase = .outside(since: now)
            (video, messages, presence) = (Allowance(.video, now: now), Allowance(.messages, now: now), Allowance(.presence, now: now))
            media = Allowance(.media, now: now)
        }

        var member: Member? { if case .inChannel(let member) = phase { member } else { nil } }
    }

    let config: Configuration
    /// One owner per channel across hubs (`Configuration.leases`), made with the hub.
    private let store: (any ChannelLeases)?
    private var connections: [WebSocketClientID: Connection] = [:]
    /// Each connection's next deadline (a warning, a token's end, out of a channel too long).
    private var deadlines = DeadlineHeap<WebSocketClientID>()
    /// How many connections deadlines were checked for, all told (tests count the work a tick does).
    private(set) var deadlinesChecked = 0
    /// What the host has yet to be told to do.
    private var outputs: [HubOutput] = []
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
    /// A channel's lease (with `leases` only): claimed and awaited by the connections waiting to join it, or held.
    enum Lease: Equatable {
        case claiming(waiting: [WebSocketClientID])
        case held
    }

    /// The renewal of the held leases: idle (none held), due, or sent and awaited.
    enum Renewal: Equatable {
        case idle
        case due(at: Duration)
        /// Sent at `at`; the next is due at `next`, once this one is answered.
        case sent(at: Duration, next: Duration)
    }

    private var leases: [String: Lease] = [:]
    private var renewal = Renewal.idle
    /// When the store last renewed every lease held.
    private var lastRenewed: Duration = .zero

    /// How long a stopping hub waits for the store to take its leases back.
    static let releaseLimit = Duration.milliseconds(500)

    init(_ config: Configuration) {
        self.config = config
        store = config.leases?()
        wallOffset = .seconds(config.unixTime()) - config.elapsed()
    }

    private var now: Duration { config.elapsed() }

    /// Unix time on the wall tokens are made on: the hub's own, or `Configuration.tokenWall`'s.
    private var tokenNow: Double { config.tokenWall?.unixTime() ?? config.unixTime() }

    /// When a token's join privilege ends on the hub's wall.
    private func end(of token: AgoraToken) -> Int64 { config.tokenWall?.end(token) ?? token.joinDeadline }

    /// The wall clock less the hub's time (unix seconds at the hub's origin), as last seen: what puts a token's end on
    /// the hub's time.
    private var wallOffset: Duration
    /// How far the wall clock may drift from the hub's time before the members' ends are planned again.
    static let wallStep = Duration.seconds(1)

    /// What the host is to do that came up since the last call (a lease store's answer, say).
    func take() -> [HubOutput] {
        var taken: [HubOutput] = []
        swap(&taken, &outputs)
        return taken
    }

    func start(on loop: EventLoop?) {
        if let loop { store?.start(on: loop) }
    }

    func opened(_ client: WebSocketClientID, query: [String: String]) -> [HubOutput] {
        // Admitted, so the one `channel` parameter decodes to itself.
        let now = self.now
        connections[client] = Connection(route: query["channel"], now: now)
        deadlines.set(client, at: now + config.outsideLimit)
        return take()
    }

    func received(_ message: WebSocketMessage, from client: WebSocketClientID) -> [HubOutput] {
        handle(message, from: client)
        return take()
    }

    private func handle(_ message: WebSocketMessage, from client: WebSocketClientID) {
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
            case .media(let media):
                guard take(\.media, client) else { return refuseOverRate(.media, "audio and video changes", client) }
                tell(media, client: client, member)
            case .ping:
                break  // heard, which is all it is for
            }
        }
    }

    func closed(_ client: WebSocketClientID, _ end: WebSocketEnd) -> [HubOutput] {
        guard let connection = connections.removeValue(forKey: client) else { return take() }
        deadlines.remove(client)
        if let member = connection.member {
            switch end {
            case .closedByClient: remove(client, member, peersHear: .quit)
            case .silent(let silence): remove(client, member, peersHear: .dropped, silentFor: silence)
            case .lost, .closedByHost: remove(client, member, peersHear: .dropped)
            }
        }
        return take()
    }

    /// Does what is due now: each connection whose deadline passed, taken off the heap, and the leases' renewal;
    /// how long until the next, nil for nothing planned.
    func tick() -> (outputs: [HubOutput], wait: Duration?) {
        let now = self.now
        followWallClock(now)
        while let client = deadlines.popDue(now) { fireDue(client, now) }
        if case .due(let at) = renewal, now >= at { renewLeases(now) }
        var renewalDue: Duration? { if case .due(let at) = renewal { at } else { nil } }
        let next = [deadlines.earliest, renewalDue].compactMap { $0 }.min()
        return (take(), next.map { $0 - now })
    }

    /// Gives back every lease (those being claimed too) before the host closes the connections with 1001, so that their
    /// clients, reconnecting at once, find their channels free on whichever hub the balancer picks (`finish` waits for
    /// the store). The joins still waiting hear the 1001 with everyone else.
    func stopping() -> [HubOutput] {
        guard let store, !leases.isEmpty else { return take() }
        let channels = Array(leases.keys)
        let held = heldChannels.count
        (leases, renewal) = ([:], .idle)
        store.release(channels)
        outputs.append(.log("hub gave back \(held) channel leases: stopping"))
        return take()
    }

    /// After `stopping`: `done` once the store has taken what was given back, or `releaseLimit` has passed; the loop
    /// turns meanwhile. Even with none held now: a channel emptied in the last turn has its release still to go out.
    func finish(then done: @escaping () -> Void) {
        guard let store else { return done() }
        store.finish(within: Self.releaseLimit, then: done)
    }

    // MARK: Requests

    /// Takes one of what the client may do from its allowance; false when it has none left now.
    private func take(_ allowance: WritableKeyPath<Connection, Allowance>, _ client: WebSocketClientID) -> Bool {
        connections[client]?[keyPath: allowance].take(now: now) == true
    }

    private func refuseOverRate(_ rate: HubRate, _ what: String, _ client: WebSocketClientID) {
        send(.error("too many \(what): a connection may send \(rate.burst) at once, then one every \(rate.interval); "
                    + "this one was not done, send it again later"), to: client)
    }

    private func join(_ join: HubJoin, client: WebSocketClientID, on connection: Connection) {
        let since: Duration
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
        let token: AgoraToken
        switch TokenRejection.check(join.token, appId: config.appID, appCertificate: config.appCertificate, channel: join.channel,
                                    user: join.user, unixNow: tokenNow) {
        case .failure(let rejection):
            return refuse(client, joining: join.channel, rejection)
        case .success(let accepted?):
            token = accepted
        case .success(nil):
            return  // not reached: with the hub's certificate, the check refuses a missing token
        }
        let admission = Admission(join: join, token: token)
        guard let store, leases[join.channel] != .held else { return admit(admission, client: client, now: now) }
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
    private func admit(_ admission: Admission, client: WebSocketClientID, now: Duration) {
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
        let member = Member(channel: join.channel, uid: uid, account: account, role: join.role, expiresAt: end(of: token),
                            media: join.media ?? .untold, hearsMedia: join.media != nil)
        let present = (channels[join.channel] ?? [:]).values.compactMap { connections[$0]?.member }.filter { $0.role == .broadcaster }
        connections[client]?.phase = .inChannel(member)
        outputs.append(.prove(client, true))
        channels[join.channel, default: [:]][uid] = client
        if let account {
            accounts[account, default: AccountUse(uid: uid, members: 0)].members += 1
            accountsByUid[uid] = account
        }
        log(client, "joined \(join.channel.escapedForPrinting) as uid \(uid)")
        send(.joined(channel: join.channel, uid: uid, role: join.role, expiresAt: member.expiresAt,
                     users: present.map(\.peer).sorted { $0.uid < $1.uid }), to: client)
        if member.hearsMedia {
            for peer in present.sorted(by: { $0.uid < $1.uid }) where peer.media != .untold {
                send(.userMedia(uid: peer.uid, peer.media), to: client)
            }
        }
        if member.role == .broadcaster { announce(member, except: client) }
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
        let now = self.now
        switch TokenRejection.check(token, appId: config.appID, appCertificate: config.appCertificate, channel: member.channel,
                                    user: user, unixNow: tokenNow) {
        case .failure(let rejection):
            send(.renewTokenResult(rejection.renewCode, expiresAt: nil), to: client)
        case .success(let accepted):
            member.expiresAt = accepted.map(end(of:)) ?? member.expiresAt
            member.warned = false
            connections[client]?.phase = .inChannel(member)
            send(.renewTokenResult(.success, expiresAt: member.expiresAt), to: client)
            fireDue(client, now)
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
        case .broadcaster: announce(member, except: client)
        case .audience:
            send(.userOffline(uid: member.uid, reason: .becomeAudience), toOthersIn: member.channel, except: client)
        }
    }

    /// A broadcaster is seen: `userJoined` to the others, then its states to those who read them, when they are not
    /// what a client takes a user's to be (`HubMedia.untold`).
    private func announce(_ member: Member, except client: WebSocketClientID) {
        send(.userJoined(member.peer), toOthersIn: member.channel, except: client)
        if member.media != .untold { sendMedia(of: member, except: client) }
    }

    /// The member's audio and video states now, answered with its own `userMedia` (so that a publish waits for the hub,
    /// as the SDK's does); the others who read them hear of a broadcaster's change.
    private func tell(_ media: HubMedia, client: WebSocketClientID, _ member: Member?) {
        guard var member else { return send(.error("not in a channel; send audio and video with join"), to: client) }
        send(.userMedia(uid: member.uid, media), to: client)
        guard media != member.media else { return }
        member.media = media
        connections[client]?.phase = .inChannel(member)
        if member.role == .broadcaster { sendMedia(of: member, except: client) }
    }

    private func sendMedia(of member: Member, except client: WebSocketClientID) {
        let readers = others(in: member.channel, except: client).filter { connections[$0]?.member?.hearsMedia == true }
        if !readers.isEmpty { outputs.append(.notice(.userMedia(uid: member.uid, member.media), to: readers)) }
    }

    // MARK: Ownership

    /// The store answered a channel's claim: the joins waiting for it (those still connected and waiting) go in, or
    /// are closed with the hub's redirect (4302, the owner's address) or, the store not answering in time, 4503: never
    /// a second copy of a channel another hub serves.
    private func claimed(_ channel: String, _ claim: ChannelClaim) {
        guard let store, case .claiming(let waiting) = leases[channel] else { return }
        let joining = waiting.compactMap { client -> (WebSocketClientID, Admission)? in
            guard case .claiming(let admission, _)? = connections[client]?.phase, admission.join.channel == channel else { return nil }
            return (client, admission)
        }
        leases[channel] = nil
        let now = self.now
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
                outputs.append(.close(client, WebSocketCloseCode(rawValue: HubCloseCode.redirect), reason: owner))
            }
        case .unknown(let why):
            for (client, _) in joining {
                log(client, "closed \(HubCloseCode.ownershipUnknown): cannot tell who owns \(channel.escapedForPrinting): \(why.escapedForPrinting)")
                outputs.append(.close(client, WebSocketCloseCode(rawValue: HubCloseCode.ownershipUnknown),
                                      reason: "the hub cannot tell which hub owns the channel now; try again later"))
            }
        }
    }

    private func renewEvery(_ leases: any ChannelLeases) -> Duration { leases.leaseDuration / 3 }

    /// The channels whose lease this hub holds (not those whose claim is still awaited).
    private var heldChannels: [String] { leases.filter { $0.value == .held }.map(\.key) }

    /// Sends the renewal of the held leases, unless one is awaited already.
    private func renewLeases(_ now: Duration) {
        guard let store else { return }
        let held = heldChannels
        guard !held.isEmpty else { renewal = .idle; return }
        renewal = .sent(at: now, next: now + renewEvery(store))
        store.renew(held) { [self] result in renewed(result) }
    }

    /// The store answered a renewal: a channel found to be another's, or every channel once the store has not answered
    /// for a lease's whole life (another hub may hold them by now), is given up: its clients are closed with 1001 and
    /// reconnect at once to wherever it lives now.
    private func renewed(_ result: Result<[String], LeaseStoreError>) {
        guard let store, case .sent(let sentAt, let next) = renewal else { return }
        renewal = .due(at: next)
        let lost: [String]
        let (logged, told): (String, String)
        switch result {
        case .success(let channels):
            lastRenewed = sentAt
            lost = channels
            (logged, told) = ("its clients go where it lives now", "the channel moved to another hub; connect again")
        case .failure(let error):
            guard now - lastRenewed >= renewEvery(store) * 3 else {
                return outputs.append(.log("hub could not renew its channel leases: \(error.description.escapedForPrinting)"))
            }
            lost = heldChannels
            (logged, told) = ("the store has not renewed it for \(store.leaseDuration) (\(error.description.escapedForPrinting)); "
                              + "its clients go where it lives now",
                              "the hub cannot reach the store of channel owners; connect again")
        }
        for channel in lost where leases[channel] == .held {
            leases[channel] = nil
            outputs.append(.log("hub lost the lease of \(channel.escapedForPrinting): \(logged)"))
            for client in (channels[channel] ?? [:]).values { outputs.append(.close(client, .goingAway, reason: told)) }
        }
    }

    // MARK: Membership and time

    /// Takes the member out of its channel; the others hear it went offline for `reason` if they could see it.
    private func remove(_ client: WebSocketClientID, _ member: Member, peersHear reason: AgoraUserOfflineReason,
                        silentFor silence: Duration = .zero) {
        let now = self.now
        if connections[client] != nil {
            connections[client]?.phase = .outside(since: now)
            outputs.append(.prove(client, false))
            deadlines.set(client, at: now + config.outsideLimit)
        }
        channels[member.channel]?[member.uid] = nil
        if channels[member.channel]?.isEmpty == true {
            channels[member.channel] = nil
            if let store, leases[member.channel] == .held {
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

    /// Warns of a token near its end, puts out a user whose token ended or closes a connection out of any channel too
    /// long; sets the connection's next deadline.
    private func fireDue(_ client: WebSocketClientID, _ now: Duration) {
        guard let connection = connections[client] else { return }
        deadlinesChecked += 1
        switch connection.phase {
        case .outside(let since), .claiming(_, let since):
            guard now >= since + config.outsideLimit else { return deadlines.set(client, at: since + config.outsideLimit) }
            log(client, "closed 1008: out of any channel for \(config.outsideLimit)")
            outputs.append(.close(client, .policyViolation, reason: "out of any channel for \(config.outsideLimit); connect again to join"))
            connections[client] = nil
            deadlines.remove(client)
        case .inChannel(var member):
            let ends = onHubTime(member.expiresAt)
            if now >= ends {
                log(client, "token ended: out of \(member.channel.escapedForPrinting)")
                remove(client, member, peersHear: .quit)
                return send(notice(for: .expired), to: client)
            }
            let warnAt = ends - config.willExpireLead
            if !member.warned, now >= warnAt {
                member.warned = true
                connections[client]?.phase = .inChannel(member)
                send(.tokenPrivilegeWillExpire(expiresAt: member.expiresAt), to: client)
            }
            deadlines.set(client, at: member.warned ? ends : warnAt)
        }
    }

    /// A time in unix seconds (a token's end) on the hub's time, as the wall clock stood at the last step seen.
    private func onHubTime(_ unixSeconds: Int64) -> Duration { .seconds(unixSeconds) - wallOffset }

    /// Tokens end by the wall clock: when it was set (a step of a second or more against the hub's time, either way),
    /// every member's end is planned again; otherwise nothing is, whatever the number of members.
    private func followWallClock(_ now: Duration) {
        let offset = Duration.seconds(config.unixTime()) - now
        guard offset - wallOffset >= Self.wallStep || wallOffset - offset >= Self.wallStep else { return }
        wallOffset = offset
        for (client, connection) in connections where connection.member != nil { fireDue(client, now) }
    }

    // MARK: Video

    /// Forwards a frame the format allows (read whole: the others' clients would take a broken one for the hub
    /// breaking the protocol); a broken one closes its sender.
    private func forwardVideo(_ frame: [UInt8], from client: WebSocketClientID, _ member: Member?) {
        do { try HubVideoFrame.check(frame) } catch {
            let code: WebSocketCloseCode = frame.count > HubVideoFrame.maxBytes ? .messageTooBig : .policyViolation
            log(client, "closed \(code.rawValue): \(error)")
            return outputs.append(.close(client, code, reason: error.description))
        }
        // Before joining, and as audience, there is nobody to send to; over the rate, the frame is dropped.
        guard let member, member.role == .broadcaster, take(\.video, client) else { return }
        outputs.append(.video(HubVideoFrame.stamped(frame, uid: member.uid), to: others(in: member.channel, except: client)))
    }

    // MARK: Sending

    private func others(in channel: String, except client: WebSocketClientID) -> [WebSocketClientID] {
        (channels[channel] ?? [:]).values.filter { $0 != client }
    }

    private func send(_ notice: HubNotice, to client: WebSocketClientID) {
        outputs.append(.notice(notice, to: [client]))
    }

    private func send(_ notice: HubNotice, toOthersIn channel: String, except client: WebSocketClientID) {
        outputs.append(.notice(notice, to: others(in: channel, except: client)))
    }

    private func log(_ client: WebSocketClientID, _ what: String) {
        outputs.append(.log("hub \(client) \(what)"))
    }
}
