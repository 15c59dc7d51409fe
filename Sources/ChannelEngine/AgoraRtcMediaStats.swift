/// The 2 s media statistics (`AgoraRtcLocalAudioStats`, `AgoraRtcRemoteVideoStats`, `AgoraRtcRemoteAudioStats`): the
/// header's fields, structs (classes in the SDK; apps only read them, or keep a copy made with `init()`). The
/// simulator sends no media, so, as in `AgoraChannelStats`, every byte, bitrate, delay and loss is 0; it fills in what
/// it does model *[ours]*: the channels and sample rate of a voice, a remote video's size and frame rate (0 while
/// frozen), and a remote user's audio quality (their latest `networkQuality`).
public struct AgoraRtcLocalAudioStats: Sendable, Equatable {
    public var numChannels: UInt = 0
    public var sentSampleRate: UInt = 0
    public var sentBitrate: UInt = 0
    public var internalCodec: UInt = 0
    public var txPacketLossRate: UInt = 0
    public var audioDeviceDelay: UInt = 0
    public var audioPlayoutDelay: UInt = 0
    public var earMonitorDelay: UInt = 0
    public var aecEstimatedDelay: UInt = 0

    public init() {}
}

/// The local video as it is captured, encoded and sent (`localVideoStats`): sizes and frame rates the encoder
/// configuration gives, while the camera encodes.
public struct AgoraRtcLocalVideoStats: Sendable, Equatable {
    public var sentBitrate = 0
    public var sentFrameRate = 0
    public var captureFrameRate = 0
    public var captureFrameWidth = 0
    public var captureFrameHeight = 0
    public var encoderOutputFrameRate = 0
    public var rendererOutputFrameRate = 0
    public var encodedFrameWidth = 0
    public var encodedFrameHeight = 0
    public var encodedFrameCount = 0
    public var encodedBitrate = 0
    public var targetBitrate = 0
    public var targetFrameRate = 0
    public var txPacketLossRate = 0

    public init() {}
}

public struct AgoraRtcRemoteVideoStats: Sendable, Equatable {
    public var uid: UInt = 0
    public var e2eDelay: UInt = 0
    public var width: UInt = 0
    public var height: UInt = 0
    public var receivedBitrate: UInt = 0
    public var decoderOutputFrameRate: Int = 0
    public var rendererOutputFrameRate: Int = 0
    /// The frame rate received, as the SDK's docs and samples read it: the decoder's here, as nothing is lost.
    public var receivedFrameRate: Int = 0
    public var frameLossRate: Int = 0
    public var packetLossRate: Int = 0
    public var totalFrozenTime: Int = 0
    public var totalActiveTime: UInt = 0
    public var publishDuration: Int = 0
    public var frozenRate: Int = 0
    public var avSyncTimeMs: Int = 0
    public var mosValue: Int = 0
    public var rxVideoBytes: UInt = 0

    public init() {}
}

public struct AgoraRtcRemoteAudioStats: Sendable, Equatable {
    public var uid: UInt = 0
    /// An `AgoraNetworkQuality` raw value.
    public var quality: UInt = 0
    public var networkTransportDelay: UInt = 0
    public var jitterBufferDelay: UInt = 0
    public var audioLossRate: UInt = 0
    public var numChannels: UInt = 0
    public var receivedSampleRate: UInt = 0
    public var receivedBitrate: UInt = 0
    public var totalFrozenTime: UInt = 0
    public var totalActiveTime: UInt = 0
    public var publishDuration: Int = 0
    public var frozenRate: UInt = 0
    public var mosValue: UInt = 0
    public var plcCount: UInt = 0
    public var rxAudioBytes: UInt = 0
    public var e2eDelay: Int = 0

    public init() {}
}
