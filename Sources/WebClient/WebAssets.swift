/// A file `tokencall serve` hands to browsers.
public struct WebFile: Sendable, Equatable {
    public let path: String
    public let contentType: String
    public let text: String
}

/// What a browser loads from `tokencall serve` (`Docs/web.md`): the Web SDK's shape as Agora's CDN script
/// (`/AgoraRTC_N.js`, the global `AgoraRTC`) and as the npm package's ES module (`/agora-rtc-sdk-ng.js`, its default
/// export), one source for both, and the page at `/`.
public enum WebAssets {
    public static let classicPath = "/AgoraRTC_N.js"
    public static let modulePath = "/agora-rtc-sdk-ng.js"

    /// The files for a server of this App ID.
    public static func files(appID: String) -> [WebFile] {
        [
            WebFile(path: classicPath, contentType: javaScript, text: classicScript),
            WebFile(path: modulePath, contentType: javaScript, text: moduleScript),
            WebFile(path: "/", contentType: "text/html; charset=utf-8", text: WebPage.html(appID: appID)),
        ]
    }

    private static let javaScript = "text/javascript; charset=utf-8"

    /// Defines `window.AgoraRTC`, finding the hub at the origin the script was loaded from.
    static let classicScript = """
        (function () {
        \(SDKScript.source)
        const scriptURL = document.currentScript ? document.currentScript.src : location.href;
        window.AgoraRTC = \(SDKScript.make(scriptURL: "scriptURL"));
        })();

        """

    /// What the npm package exports by name beside its default (its `index.d.ts`): the enums and the functions of
    /// `AgoraRTC`. `WebModuleExportsTests` checks each is a member of the object `AgoraRTC.js` makes.
    static let namedExports = [
        "AREAS", "AudienceLatencyLevelType", "ChannelMediaRelayError", "ChannelMediaRelayEvent",
        "ChannelMediaRelayState", "ConnectionDisconnectedReason", "RemoteStreamFallbackType", "RemoteStreamType",
        "VERSION", "checkAudioTrackIsActive", "checkSystemRequirements", "checkVideoTrackIsActive", "createClient",
        "createCameraVideoTrack", "createMicrophoneAudioTrack", "createMicrophoneAndCameraTracks", "createScreenVideoTrack",
        "disableLogUpload", "enableLogUpload", "getCameras", "getDevices", "getMicrophones", "getPlaybackDevices",
        "getSupportedCodec", "setArea", "setLogLevel",
    ]

    /// `export default AgoraRTC` and the named exports, finding the hub at the origin the module was loaded from.
    static let moduleScript = """
        \(SDKScript.source)
        const AgoraRTC = \(SDKScript.make(scriptURL: "import.meta.url"));
        export default AgoraRTC;
        export const { \(namedExports.joined(separator: ", ")) } = AgoraRTC;

        """
}
