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
        const scriptURL = document.currentScript ? document.currentScript.src : location.href;
        window.AgoraRTC = (\(SDKScript.maker))(scriptURL);
        })();

        """

    /// `export default AgoraRTC`, finding the hub at the origin the module was loaded from.
    static let moduleScript = """
        const AgoraRTC = (\(SDKScript.maker))(import.meta.url);
        export default AgoraRTC;

        """
}
