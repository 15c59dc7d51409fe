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
        userLimit: AgoraRtcEngineKit.remoteUserLimit)
}
