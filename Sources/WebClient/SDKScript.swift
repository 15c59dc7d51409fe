import AgoraVocabulary
import HubProtocol
import Timers

/// The `.js` files of this folder as strings, one `static let` each (`Plugins/EmbedJavaScript` writes them).
enum EmbeddedJavaScript {}

/// The JavaScript of the Web SDK's shape: `AgoraRTC.js` (this folder, made a string at build time by
/// `Plugins/EmbedJavaScript`) defines `makeAgoraRTC(scriptURL, HUB, CODES)`; the hub's numbers and Agora's codes come
/// from here, the one place each is kept. `WebAssets` wraps it as a classic script and as an ES module.
enum SDKScript {
    /// `makeAgoraRTC`'s source.
    static let source = EmbeddedJavaScript.AgoraRTC

    /// The call that makes the `AgoraRTC` object, given a JavaScript expression for the URL the script came from.
    static func make(scriptURL: String) -> String {
        "makeAgoraRTC(\(scriptURL), \(hub), \(codes))"
    }

    /// The hub's numbers.
    static let hub = """
        {
          path: "/hub",
          version: \(HubVideoFrame.version),
          columns: \(HubVideoFrame.sentColumns),
          rows: \(HubVideoFrame.sentRows),
          framesPerSecond: \(HubVideoFrame.maxPerSecond),
          maxFrameBytes: \(HubVideoFrame.maxBytes),
          pingMs: \(HubSilence.limit.wholeMilliseconds / 4),
          routable: "\(HubRoute.characters)",
          userLimit: \(HubPeer.announcedLimit),
        }
        """

    /// Agora's values a notice may name, name to number, by what they are.
    static let codes = """
        {
          offline: \(map(AgoraUserOfflineReason.self)),
          renewal: \(map(AgoraRenewTokenErrorCode.self)),
          state: \(map(AgoraConnectionState.self)),
          reason: \(map(AgoraConnectionChangedReason.self)),
          error: \(map(AgoraErrorCode.self)),
        }
        """

    /// An Agora enum's values as a JavaScript `Map` from each name to its number.
    private static func map<Code: AgoraCode>(_: Code.Type) -> String {
        "new Map([" + Code.allCases.map { "[\"\($0.name)\", \($0.rawValue)]" }.joined(separator: ", ") + "])"
    }
}
