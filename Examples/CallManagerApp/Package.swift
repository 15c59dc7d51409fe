// swift-tools-version: 6.0
// A call manager as real 4.x apps write one (a plain NSObject owning the engine), built against this repository's
// ChannelEngine in Swift 5 mode, with GuideApp's stand-in for UIKit.
import PackageDescription

let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "CallManagerApp",
    dependencies: [
        // Named, so the dependency does not take the name of whatever folder the repository was cloned into.
        .package(name: "TokenCall", path: "../.."),
        .package(path: "../GuideApp"),
    ],
    targets: [
        .executableTarget(
            name: "CallManagerApp",
            dependencies: [
                .product(name: "ChannelEngine", package: "TokenCall"),
                .product(name: "GuideHarness", package: "GuideApp"),
            ],
            swiftSettings: swift5
        ),
    ]
)
