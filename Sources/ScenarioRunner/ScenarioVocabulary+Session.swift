import AccessToken
import CallSession
import ChannelEngine
import Scenarios

extension ScenarioVocabulary {
    /// What a scenario run against a `CallSession` may name: its events and their fields, Agora's connection states,
    /// the embedded server's mistakes, and the engine's limit of simulated remote users.
    public static let session = ScenarioVocabulary(
        events: SessionEvent.fieldNames,
        states: AgoraConnectionState.allCases.map(\.name),
        mistakes: TokenMistake.allCases.map(\.rawValue),
        userLimit: AgoraRtcEngineKit.remoteUserLimit,
        aliases: sdkNames(of: SessionEvent.fieldNames))

    /// Each SDK's name for an event the session has (SDKProfile's table), to the session's (iOS) name.
    private static func sdkNames(of events: [String: [String]]) -> [String: String] {
        var aliases: [String: String] = [:]
        for word in SDKWord.allCases where !word.isMethod && events[word.rawValue] != nil {
            for profile in SDKProfile.allCases {
                guard let name = SDKWords.table[word]?[profile], name != word.rawValue, events[name] == nil else { continue }
                aliases[name] = aliases[name] ?? word.rawValue
            }
        }
        return aliases
    }
}
