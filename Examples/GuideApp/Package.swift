// swift-tools-version: 6.0
// The code of Agora's iOS guide ("Sample code"), UIKit removed, built against this repository's ChannelEngine.
import PackageDescription

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "GuideApp",
    products: [
        // The stand-in for UIKit and Xcode, which Examples/CallManagerApp uses too.
        .library(name: "GuideHarness", targets: ["GuideHarness"]),
    ],
    dependencies: [
        // Named, so the dependency does not take the name of whatever folder the repository was cloned into.
        .package(name: "TokenCall", path: "../.."),
    ],
    targets: [
        // What UIKit and the app's lifecycle would provide: options, output lines, the run loop.
        .target(name: "GuideHarness", swiftSettings: swift5),
        // The guide's view controller as the guide writes it: tokens fetched for uid 1234, joined as 123456;
        // with --one-uid, the same view controller joining as 1234.
        .executableTarget(
            name: "GuideApp",
            dependencies: ["GuideHarness", .product(name: "ChannelEngine", package: "TokenCall")],
            swiftSettings: swift5
        ),
    ]
)
