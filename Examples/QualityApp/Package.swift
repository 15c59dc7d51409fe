// swift-tools-version: 6.0
// A call-quality screen in the shape of video-sdk-samples-ios' managers (a base manager conforming in an extension,
// subclasses adding callbacks), built against this repository's ChannelEngine in Swift 5 and in Swift 6 mode.
import PackageDescription

let package = Package(
    name: "QualityApp",
    dependencies: [
        // Named, so the dependency does not take the name of whatever folder the repository was cloned into.
        .package(name: "TokenCall", path: "../.."),
        .package(path: "../GuideApp"),
    ],
    targets: [
        .executableTarget(
            name: "QualityApp",
            dependencies: [
                .product(name: "ChannelEngine", package: "TokenCall"),
                .product(name: "GuideHarness", package: "GuideApp"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // The same files (links to QualityApp's), in Swift 6 mode.
        .executableTarget(
            name: "QualityApp6",
            dependencies: [
                .product(name: "ChannelEngine", package: "TokenCall"),
                .product(name: "GuideHarness", package: "GuideApp"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
