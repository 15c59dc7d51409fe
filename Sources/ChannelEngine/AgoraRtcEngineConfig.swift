import Foundation
import HubProtocol
#if canImport(Glibc)
import Glibc
#endif

/// How the engine is created (`AgoraRtcEngineConfig`): a class of settable properties, as in the SDK, plus the
/// settings of the simulation behind it. The engine keeps a copy, so changing it afterwards changes nothing.
public final class AgoraRtcEngineConfig {
    public var appId: String?
    public var channelProfile: AgoraChannelProfile = .liveBroadcasting
    /// Accepted and unused: the simulated network serves every region.
    public var areaCode: AgoraAreaCodeType = .global
    /// The audio scenario the engine starts with, as `setAudioScenario(_:)` would set it: recorded when not `.default`.
    public var audioScenario: AgoraAudioScenario = .default
    /// What the simulated network knows; not in Agora's SDK. A program that never sets it gets a network that knows
    /// the App Certificate from `APP_CERTIFICATE`, as `tokencall serve` reads it.
    public var simulation = Simulation.fromEnvironment()

    public init() {}

    /// The simulator's shorthand for setting the three at once.
    public convenience init(appId: String, channelProfile: AgoraChannelProfile = .liveBroadcasting,
                            simulation: Simulation = Simulation()) {
        self.init()
        self.appId = appId
        self.channelProfile = channelProfile
        self.simulation = simulation
    }

    func copy() -> AgoraRtcEngineConfig {
        let copy = AgoraRtcEngineConfig(appId: appId ?? "", channelProfile: channelProfile, simulation: simulation)
        copy.areaCode = areaCode
        copy.audioScenario = audioScenario
        return copy
    }
}

/// What the simulated network knows and how it behaves; none of this exists in Agora's SDK.
public struct Simulation: Sendable {
    /// The App Certificate the network checks signatures with; nil checks everything but the signature.
    public var appCertificate: String?
    /// Every timer of the engine reads this clock.
    public var clock: any Clock<Duration>
    /// Seconds since 1970, read once when a token is accepted to place its expiry on `clock`.
    public var unixTime: @Sendable () -> Double
    /// The wall the call's tokens are made on: `unixTime`'s, or a real one the call's clock has left.
    public var tokenWall = TokenWall.call
    /// Everything random (remote users, assigned uids) follows from it.
    public var seed: UInt64
    /// Remote users already in or arriving in each channel.
    public var remoteUsers: Int
    /// Whether remote users come and go on their own.
    public var peerChurn: Bool
    /// How long before expiry `tokenPrivilegeWillExpire` fires.
    public var willExpireLead: Duration
    /// How long the network takes to answer a join.
    public var joinLatency: Duration
    /// A hub that is the network of the main channel: real people, and the authority on tokens
    /// (`AgoraRtcEngineKit+Hub`). Nil: everyone in the channel is simulated.
    public var hub: (any HubLink)?

    public init(
        appCertificate: String? = nil, clock: any Clock<Duration> = ContinuousClock(),
        unixTime: @escaping @Sendable () -> Double = Simulation.systemUnixTime, seed: UInt64 = 0,
        remoteUsers: Int = 2, peerChurn: Bool = true, willExpireLead: Duration = AgoraTokenTiming.willExpireLead,
        joinLatency: Duration = .milliseconds(250), hub: (any HubLink)? = nil
    ) {
        self.appCertificate = appCertificate
        self.clock = clock
        self.unixTime = unixTime
        self.seed = seed
        self.remoteUsers = remoteUsers
        self.peerChurn = peerChurn
        self.willExpireLead = willExpireLead
        self.joinLatency = joinLatency
        self.hub = hub
    }

    /// The defaults, with the App Certificate from `APP_CERTIFICATE` when it is set and not empty: an app written for
    /// the real SDK, which never mentions the simulation, joins a network that checks signatures as Agora's does.
    /// Without it the network checks everything but the signature, and says so once (`signatureNotChecked`).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Simulation {
        Simulation(appCertificate: environment["APP_CERTIFICATE"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The system's wall clock.
    @Sendable public static func systemUnixTime() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
