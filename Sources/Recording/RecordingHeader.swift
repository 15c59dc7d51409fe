import CallSession
import ChannelEngine
import JSON
import PrintableText
import Timers

/// A recording's first line: the format and its version, the join options as given (secrets left out), the seed,
/// when the call started, and what the call screen shows before any event.
public struct RecordingHeader: Sendable, Equatable {
    public static let format = "tokencall-recording"
    /// The format version this tokencall writes and the newest it reads.
    public static let version = 1

    /// The join options as a record keeps them (`Invocation.kept`: a flag's value is empty, no credential), by name.
    public var options: [String: String]
    public var seed: UInt64
    /// Unix time when the call started: an event at `t` happened at `started + t`.
    public var started: Double
    /// What the screen shows of the call before its events: the settings the call ran with.
    public var call: CallSettings

    public init(options: [String: String], seed: UInt64, started: Double, call: CallSettings) {
        self.options = options
        self.seed = seed
        self.started = (started * 1000).rounded(.down) / 1000
        self.call = call
    }

    /// The header of a recording of `session`, about to start, with the options given for it.
    @MainActor
    public init(options: [String: String], of session: CallSession) {
        self.init(options: options, seed: session.configuration.seed, started: session.configuration.unixTime(), call: session.settings)
    }

    /// The header's line, members in a fixed order and options by name.
    public var line: String {
        let options = options.sorted { $0.key < $1.key }.map { "\(Self.quoted($0.key)): \(Self.quoted($0.value))" }
        let millis = Int64((started * 1000).rounded(.down))
        return "{\"format\": \"\(Self.format)\", \"version\": \(Self.version), \"options\": {\(options.joined(separator: ", "))}, "
            + "\"seed\": \(seed), \"started\": \(SessionEvent.decimal(.milliseconds(millis))), \"call\": {\"channel\": \(Self.quoted(call.channel)), "
            + "\"uid\": \(call.uid), \"account\": \(call.account.map(Self.quoted) ?? "null"), \"role\": \"\(call.role.name)\", \"tokenServer\": \(Self.quoted(call.tokenServer)), "
            + "\"renewMethod\": \"\(call.renewMethod.rawValue)\", \"autoRenew\": \(call.autoRenew), "
            + "\"sdk\": \"\(call.voice.profile.rawValue)\", \"sdkVersion\": \"\(call.voice.version)\"}}"
    }

    /// The header a first line holds; a newer version is `RecordingError.newerVersion`, anything else `badLine`.
    static func read(_ bytes: some Collection<UInt8>) throws(RecordingError) -> RecordingHeader {
        let value: JSONValue, object: RecordedObject, version: Int
        do throws(LineProblem) {
            value = try RecordedObject.parse(bytes)
            object = try RecordedObject(value, what: "the header")
            guard object.members["format"] == .string(format) else { throw LineProblem("the header's format is not \"\(format)\"") }
            version = try object.integer("version")
        } catch {
            throw .badLine(line: 1, problem: error.words)
        }
        guard version <= Self.version else { throw .newerVersion(version) }
        do throws(LineProblem) {
            guard version == Self.version else { throw LineProblem("the header's version \(version) is not one tokencall wrote") }
            let header = try members(object)
            guard JSONValue.parse(Array(header.line.utf8)) == withVoice(value) else {
                throw LineProblem("the header's members are not the ones it has (one too many, or one written otherwise)")
            }
            return header
        } catch {
            throw .badLine(line: 1, problem: error.words)
        }
    }

    /// The header's members, each by its type.
    private static func members(_ object: RecordedObject) throws(LineProblem) -> RecordingHeader {
        var options: [String: String] = [:]
        let given = try object.object("options")
        for key in given.members.keys { options[key] = try given.text(key) }
        let call = try object.object("call")
        return RecordingHeader(
            options: options, seed: try object.integer("seed"), started: Double(try object.seconds("started").wholeMilliseconds) / 1000,
            call: CallSettings(channel: try call.text("channel"), uid: UInt(try call.integer("uid", as: UInt32.self)),
                       account: try call.value("account") == .null ? nil : try call.text("account"),
                       role: try call.choice("role", \AgoraClientRole.name), tokenServer: try call.text("tokenServer"),
                       renewMethod: try call.choice("renewMethod", \RenewMethod.rawValue), autoRenew: try call.flag("autoRenew"),
                       voice: try voice(call)))
    }

    /// The SDK a header's call names; a recording made before there were profiles spoke iOS.
    private static func voice(_ call: RecordedObject) throws(LineProblem) -> SDKVoice {
        guard call.members["sdk"] != nil || call.members["sdkVersion"] != nil else { return .standard }
        let profile = try call.choice("sdk", \SDKProfile.rawValue)
        guard let version = SDKVersion(try call.text("sdkVersion")) else { throw LineProblem("the header's sdkVersion is not a version such as 4.6") }
        return SDKVoice(profile, version: version)
    }

    /// A header's value as this version writes it: one made before there were profiles, with iOS's.
    private static func withVoice(_ value: JSONValue) -> JSONValue {
        guard case .object(var members) = value, case .object(var call)? = members["call"], call["sdk"] == nil, call["sdkVersion"] == nil else {
            return value
        }
        call["sdk"] = .string(SDKVoice.standard.profile.rawValue)
        call["sdkVersion"] = .string(SDKVoice.standard.version.description)
        members["call"] = .object(call)
        return .object(members)
    }

    private static func quoted(_ text: String) -> String { text.jsonQuoted }
}
