// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "TokenCall",
    products: [
        .executable(name: "tokencall", targets: ["tokencall"]),
        // The simulated AgoraRtcEngineKit, for packages that depend on this one by path.
        .library(name: "ChannelEngine", targets: ["ChannelEngine"]),
    ],
    targets: [
        // The C boundary: nothing else imports C.
        .systemLibrary(name: "CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CLinux"),

        .target(name: "PrintableText"),
        .target(name: "OutputFiles"),
        .target(name: "AccessToken", dependencies: ["CCrypto", "CZlib", "PrintableText"]),
        .target(name: "Arguments", dependencies: ["PrintableText"]),
        .target(name: "Timers"),
        .target(name: "SeededRandom"),
        .target(name: "AgoraVocabulary", dependencies: ["AccessToken"]),
        .target(name: "ChannelEngine", dependencies: ["AgoraVocabulary", "AccessToken", "HubProtocol", "JSON", "Timers", "SeededRandom"]),
        .target(name: "JSON"),
        .target(name: "Sockets", dependencies: ["CLinux", "Timers"]),
        .target(name: "RedisClient", dependencies: ["PrintableText", "Sockets", "TLS", "Timers"]),
        .target(name: "HTTP1", dependencies: ["PrintableText"]),
        .target(name: "WebSocket", dependencies: ["CCrypto"]),
        .target(name: "TLS", dependencies: ["CCrypto", "PrintableText", "Sockets"]),
        .target(name: "HubProtocol", dependencies: ["AgoraVocabulary", "AccessToken", "JSON", "Timers"]),
        .target(name: "HubClient", dependencies: ["HubProtocol", "PrintableText", "Sockets", "TLS", "Timers", "WebSocket"]),
        .target(name: "HubLoad", dependencies: ["HubClient", "HubProtocol", "TLS", "TokenClient", "PrintableText", "Timers"]),
        .target(name: "WebServer", dependencies: ["HTTP1", "PrintableText", "Sockets", "TLS", "WebSocket"]),
        .target(name: "TokenServer", dependencies: ["AccessToken", "HTTP1", "JSON", "PrintableText", "TLS", "WebServer"]),
        .target(name: "TokenClient", dependencies: ["AccessToken", "HTTP1", "JSON", "PrintableText", "Sockets", "TLS", "Timers"]),
        .target(name: "HubServer", dependencies: ["AgoraVocabulary", "HTTP1", "HubProtocol", "AccessToken", "PrintableText", "RedisClient", "Sockets", "Timers", "WebServer", "WebSocket"]),
        .target(name: "CallSession", dependencies: ["ChannelEngine", "HubProtocol", "TokenClient", "AccessToken", "Timers", "PrintableText",
                                                  "SeededRandom"]),
        .target(name: "Scenarios", dependencies: ["PrintableText"]),
        // The built-in scenarios: readable files that double as examples, embedded in the executable.
        .target(name: "BuiltInScenarios", path: "Scenarios",
                resources: ["renews-before-expiry", "recovers-after-expiry", "network-cut-near-expiry", "server-outage-during-renewal",
                            "stale-token-refused", "wrong-channel-token", "user-account", "two-in-a-hub"].map { .embedInCode("\($0).scenario") }),
        .target(name: "ScenarioRunner", dependencies: ["Scenarios", "CallSession", "ChannelEngine", "AccessToken", "Timers", "TokenClient"]),
        .target(name: "Recording", dependencies: ["CallSession", "ChannelEngine", "AccessToken", "JSON", "OutputFiles", "PrintableText", "Timers"]),
        .target(name: "CallScreen", dependencies: ["CallSession", "ChannelEngine", "AccessToken", "CNcurses", "OutputFiles", "PrintableText", "Timers", "TokenClient"]),
        .target(name: "TokenDoctor", dependencies: ["TokenClient", "HTTP1", "TLS", "AccessToken", "Timers", "PrintableText"]),
        // AgoraRTC.js becomes a Swift string at build time (Plugins/EmbedJavaScript).
        .target(name: "WebClient", dependencies: ["HubProtocol", "AgoraVocabulary", "AccessToken", "Timers", "TokenClient"], plugins: ["EmbedJavaScript"]),
        .plugin(name: "EmbedJavaScript", capability: .buildTool()),
        .target(name: "TestSupport", dependencies: ["CCrypto", "HubProtocol", "Sockets", "Timers", "TLS", "WebServer", "WebSocket"]),
        .executableTarget(name: "tokencall", dependencies: ["AccessToken", "Arguments", "TokenServer", "WebServer", "HubServer", "TokenDoctor", "CallSession", "CallScreen", "ChannelEngine", "TokenClient", "PrintableText", "Recording", "Timers", "HubClient", "HubLoad", "HubProtocol", "OutputFiles", "TLS", "WebClient", "RedisClient", "Sockets",
                                                     "Scenarios", "ScenarioRunner", "BuiltInScenarios"]),


        .executableTarget(
            name: "tokencall-bench",
            dependencies: ["AccessToken", "ChannelEngine", "HTTP1", "TokenClient", "CallSession", "CallScreen"],
            path: "Benchmarks/TokenBench"
        ),

        .testTarget(name: "AccessTokenTests", dependencies: ["AccessToken", "SeededRandom", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "ArgumentsTests", dependencies: ["Arguments", "TestSupport"]),
        .testTarget(name: "TimersTests", dependencies: ["Timers", "TestSupport"]),
        .testTarget(name: "SocketsTests", dependencies: ["Sockets", "SeededRandom", "TestSupport"]),
        .testTarget(name: "TLSTests", dependencies: ["TLS", "Sockets"]),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1", "SeededRandom"]),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "SeededRandom"]),
        .testTarget(name: "HubServerTests", dependencies: ["HubServer", "AgoraVocabulary", "HubProtocol", "TokenServer", "WebServer", "AccessToken", "JSON", "WebSocket", "TestSupport", "SeededRandom",
                                                   "RedisClient", "Sockets"]),
        .testTarget(name: "HubClientTests", dependencies: ["HubClient", "HubLoad", "TokenClient", "HubServer", "HubProtocol", "TokenServer", "WebServer", "AccessToken", "TestSupport", "Sockets", "TLS"]),
        .testTarget(name: "RedisClientTests", dependencies: ["RedisClient", "Sockets", "TestSupport"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "SeededRandom"]),
        .testTarget(name: "PrintableTextTests", dependencies: ["PrintableText"]),
        .testTarget(name: "OutputFilesTests", dependencies: ["OutputFiles", "TestSupport"]),
        .testTarget(name: "ChannelEngineTests", dependencies: ["ChannelEngine", "AccessToken", "HubProtocol", "TestSupport"]),
        .testTarget(name: "WebServerTests", dependencies: ["HTTP1", "WebServer", "WebSocket", "SeededRandom", "Sockets", "TLS", "TestSupport"]),
        .testTarget(name: "TokenServerTests", dependencies: ["HTTP1", "JSON", "TokenServer", "WebServer", "AccessToken", "SeededRandom", "Sockets", "TLS", "TestSupport"]),
        .testTarget(name: "TokenClientTests", dependencies: ["HTTP1", "TokenClient", "TLS", "Sockets", "TokenServer", "AccessToken", "TestSupport"]),
        .testTarget(name: "ScenariosTests", dependencies: ["Scenarios", "ScenarioRunner"]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "CallSession", "ChannelEngine", "AccessToken", "OutputFiles"]),
        .testTarget(name: "CallSessionTests", dependencies: ["HTTP1", "CallSession", "HubProtocol", "Timers", "CallScreen", "OutputFiles", "Recording", "ChannelEngine", "TokenClient", "TokenServer", "WebServer", "TestSupport"]),
        .testTarget(name: "CallScreenTests", dependencies: ["CallScreen", "CallSession", "AccessToken", "ChannelEngine", "OutputFiles", "SeededRandom", "TestSupport", "TokenClient"],
                    exclude: ["Snapshots"]),
        .testTarget(name: "TokenDoctorTests", dependencies: ["HTTP1", "TLS", "TokenDoctor", "TokenClient", "TokenServer", "AccessToken", "TestSupport"]),
        .testTarget(name: "TokenCallTests", dependencies: ["tokencall", "AccessToken", "CallScreen", "ChannelEngine", "HubProtocol", "WebSocket",
                                                   "JSON", "RedisClient", "Sockets",
                                                   "TestSupport", "WebClient"], exclude: ["Browser", "Python"]),
    ]
)
