// `import AgoraRtcKit` brings Foundation (`CGSize`, `Data`, `JSONEncoder`) to files that import only the SDK; so
// does `import ChannelEngine`. The engine's own interface needs Foundation already, so this adds nothing to a build.
@_exported import Foundation
