// The Web SDK's shape (Docs/web.md): one function that, given the URL it was loaded from, the hub's numbers (HUB)
// and Agora's values a notice may name (CODES, name to number, by what they are), makes the `AgoraRTC` object,
// speaking the hub's protocol (Docs/hub-protocol.md) to the hub at that origin. WebAssets.swift passes HUB and CODES
// from the one place each is kept and wraps this as a classic script and as an ES module; it is read at build time.
function makeAgoraRTC(scriptURL, HUB, CODES) {
  "use strict";
  const VERSION = "4.20.0-tokencall";
  // A remote user's video is unpublished after this long without a frame (the hub does not say).
  const UNPUBLISHED_AFTER_MS = 3000;
  const QUALITY_EVERY_MS = 2000;
  const VOLUMES_EVERY_MS = 2000;
  const JOIN_TIMEOUT_MS = 10000;
  const RECONNECT_FOR_MS = 30000;
  // Pixels per cell of a remote frame on the canvas play() makes.
  const CELL_PIXELS = 10;

  class AgoraRTCError extends Error {
    constructor(code, message, data) {
      super(message);
      this.name = "AgoraRTCException";
      this.code = code;
      if (data !== undefined) this.data = data;
    }
    toString() {
      return `AgoraRTCError ${this.code}: ${this.message}` + (this.data ? ` data: ${JSON.stringify(this.data)}` : "");
    }
  }
  const fail = (code, message, data) => new AgoraRTCError(code, message, data);

  /// What means nothing without a real network is accepted and said once per call, on the console (Docs/web.md).
  const reported = new Set();
  function report(call, what) {
    if (reported.has(call)) return;
    reported.add(call);
    console.info(`AgoraRTC: ${call}: ${what} (tokencall's Web SDK: Docs/web.md)`);
  }

  // MARK: the SDK's enums (agora-rtc-sdk-ng's index.d.ts), also the ES module's named exports

  /// A TypeScript enum as it compiles: names to values, and numbers back to names.
  function enumeration(members) {
    const object = {};
    for (const [name, value] of Object.entries(members)) {
      object[name] = value;
      if (typeof value === "number") object[value] = name;
    }
    return Object.freeze(object);
  }
  const named = (...names) => enumeration(Object.fromEntries(names.map((name) => [name, name])));

  const AREAS = named("CHINA", "ASIA", "NORTH_AMERICA", "EUROPE", "JAPAN", "INDIA", "KOREA", "HKMC", "US", "OCEANIA",
                      "SOUTH_AMERICA", "AFRICA", "OVERSEA", "GLOBAL", "EXTENSIONS");
  const AudienceLatencyLevelType = enumeration({ AUDIENCE_LEVEL_LOW_LATENCY: 1, AUDIENCE_LEVEL_ULTRA_LOW_LATENCY: 2,
                                                 AUDIENCE_LEVEL_SYNC_LATENCY: 3 });
  const ChannelMediaRelayError = named("RELAY_OK", "SERVER_CONNECTION_LOST", "SRC_TOKEN_EXPIRED", "DEST_TOKEN_EXPIRED");
  const ChannelMediaRelayEvent = named("NETWORK_DISCONNECTED", "NETWORK_CONNECTED", "PACKET_JOINED_SRC_CHANNEL",
                                       "PACKET_JOINED_DEST_CHANNEL", "PACKET_SENT_TO_DEST_CHANNEL", "PACKET_RECEIVED_VIDEO_FROM_SRC",
                                       "PACKET_RECEIVED_AUDIO_FROM_SRC", "PACKET_UPDATE_DEST_CHANNEL",
                                       "PACKET_UPDATE_DEST_CHANNEL_REFUSED", "PACKET_UPDATE_DEST_CHANNEL_NOT_CHANGE");
  const ChannelMediaRelayState = named("RELAY_STATE_IDLE", "RELAY_STATE_CONNECTING", "RELAY_STATE_RUNNING", "RELAY_STATE_FAILURE");
  const ConnectionDisconnectedReason = named("LEAVE", "NETWORK_ERROR", "SERVER_ERROR", "UID_BANNED", "IP_BANNED", "CHANNEL_BANNED",
                                             "FALLBACK", "LICENSE_MISSING", "LICENSE_EXPIRED", "LICENSE_MINUTES_EXCEEDED",
                                             "LICENSE_PERIOD_INVALID", "LICENSE_MULTIPLE_SDK_SERVICE", "LICENSE_ILLEGAL", "TOKEN_EXPIRE");
  const RemoteStreamFallbackType = enumeration({ DISABLE: 0, LOW_STREAM: 1, AUDIO_ONLY: 2 });
  const RemoteStreamType = enumeration({ HIGH_STREAM: 0, LOW_STREAM: 1 });

  /// ClientRoleOptions: { level: an AudienceLatencyLevelType, delay?: ms }.
  function checkRoleOptions(options) {
    if (options === null || typeof options !== "object" || ![1, 2, 3].includes(options.level)) {
      throw fail("INVALID_PARAMS", "clientRoleOptions is { level: AudienceLatencyLevelType.AUDIENCE_LEVEL_LOW_LATENCY (1) or AUDIENCE_LEVEL_ULTRA_LOW_LATENCY (2) }");
    }
    if (options.delay !== undefined && (!Number.isInteger(options.delay) || options.delay < 0 || options.delay > 3000)) {
      throw fail("INVALID_PARAMS", "clientRoleOptions.delay is 0 to 3000 ms");
    }
  }

  // The gateway's reasons after CAN_NOT_GET_GATEWAY_SERVER, by the native error code the hub reports. Every table
  // read by a value from outside is a Map: a plain object would answer "constructor" from its prototype.
  const GATEWAY_REASONS = new Map([
    [101, "invalid vendor key, can not find appid"],
    [109, "dynamic key or token timeout"],
    [110, "invalid token, authorized failed"],
    [120, "dynamic use static key"],
  ]);
  function gatewayError(code) {
    const reason = GATEWAY_REASONS.get(code) || `join refused (${code})`;
    return fail("CAN_NOT_GET_GATEWAY_SERVER", `flag: 4096, message: AgoraRTCError CAN_NOT_GET_GATEWAY_SERVER: ${reason}`,
                { desc: reason, retry: false });
  }

  // user-left's reasons, by the hub's userOffline reason.
  const LEFT_REASONS = new Map([["quit", "Quit"], ["dropped", "ServerTimeOut"], ["becomeAudience", "BecomeAudience"]]);

  class Emitter {
    constructor() { this._listeners = new Map(); }
    on(event, listener) {
      if (typeof listener !== "function") return;
      const list = this._listeners.get(event) || [];
      if (!list.includes(listener)) list.push(listener);
      this._listeners.set(event, list);
    }
    once(event, listener) {
      const wrapped = (...args) => { this.off(event, wrapped); listener(...args); };
      wrapped.original = listener;
      this.on(event, wrapped);
    }
    off(event, listener) {
      const list = this._listeners.get(event);
      if (!list) return;
      const index = list.findIndex((l) => l === listener || l.original === listener);
      if (index >= 0) list.splice(index, 1);
    }
    removeAllListeners(event) {
      if (event === undefined) this._listeners.clear(); else this._listeners.delete(event);
    }
    getListeners(event) { return (this._listeners.get(event) || []).slice(); }
    emit(event, ...args) {
      for (const listener of this.getListeners(event)) {
        try { listener(...args); } catch (error) { console.error(`AgoraRTC: a "${event}" listener threw`, error); }
      }
    }
  }

  // Agora's channel names: 1 to 64 bytes of these characters.
  const CHANNEL_NAME = /^[a-zA-Z0-9 !#$%&()+\-:;<=.>?@\[\]^_{|}~,]{1,64}$/;

  /// The hub's join fields for a uid: a number (0 or none for one the hub assigns) or a string user account.
  function userFields(uid) {
    if (uid === undefined || uid === null) return { uid: 0 };
    if (typeof uid === "number") {
      if (!Number.isInteger(uid) || uid < 0 || uid > 4294967295) {
        throw fail("INVALID_PARAMS", `uid must be an integer from 0 to 4294967295 or a string, not ${uid}`);
      }
      return { uid };
    }
    if (typeof uid === "string") {
      if (uid.length < 1 || uid.length > 255) throw fail("INVALID_PARAMS", "a string uid is 1 to 255 characters");
      return { account: uid };
    }
    throw fail("INVALID_PARAMS", `uid must be a number, a string or null, not ${typeof uid}`);
  }

  function checkJoin(appid, channel, token) {
    if (typeof appid !== "string" || appid.length === 0) throw fail("INVALID_PARAMS", "appid must be your App ID, a string");
    if (typeof channel !== "string" || !CHANNEL_NAME.test(channel)) {
      throw fail("INVALID_PARAMS", "channel must be 1 to 64 bytes of a-z A-Z 0-9, space and ! # $ % & ( ) + - : ; < = . > ? @ [ ] ^ _ { } | ~ ,");
    }
    if (token === "") throw fail("INVALID_PARAMS", "Invalid token: . If you don not use token, set it to null");
    if (token !== null && token !== undefined && typeof token !== "string") {
      throw fail("INVALID_PARAMS", "token must be a string, or null without an App Certificate");
    }
  }

  function element(target, call) {
    const found = typeof target === "string" ? document.getElementById(target) : target;
    if (!(found instanceof HTMLElement)) throw fail("INVALID_PARAMS", `${call}: no element ${typeof target === "string" ? "with id " + target : "given"}`);
    return found;
  }

  /// The SDK's element structure in the container (an element or its id): `div#agora-video-player-<track id>` holding
  /// `video.agora_video_player`, which plays the stream; config.fit is "cover" (the default), "contain" or "fill".
  function player(container, trackId, stream, config, mirror) {
    if (config === null || typeof config !== "object") throw fail("INVALID_PARAMS", "play()'s config must be an object");
    const fit = config.fit === undefined ? "cover" : config.fit;
    if (!["cover", "contain", "fill"].includes(fit)) throw fail("INVALID_PARAMS", `config.fit must be "cover", "contain" or "fill", not ${fit}`);
    const parent = element(container, "play()");
    const div = document.createElement("div");
    div.id = `agora-video-player-${trackId}`;
    div.style.cssText = "width:100%;height:100%;position:relative;overflow:hidden;background-color:black";
    const video = document.createElement("video");
    video.id = `video_${trackId}`;
    video.className = "agora_video_player";
    video.autoplay = true;
    video.muted = true;
    video.playsInline = true;
    video.style.cssText = `width:100%;height:100%;position:absolute;left:0;top:0;object-fit:${fit}`
      + (mirror ? ";transform:rotateY(180deg)" : "");
    video.srcObject = stream;
    div.appendChild(video);
    parent.appendChild(div);
    playMedia(video, false);
    return { div, video };
  }

  // MARK: autoplay and devices (AgoraRTC.onAutoplayFailed, onCameraChanged, onMicrophoneChanged, onPlaybackDeviceChanged)

  /// Calls the app's AgoraRTC.<name> if it set one; what it throws is said, not passed on.
  function callback(name, ...args) {
    const listener = AgoraRTC[name];
    if (typeof listener !== "function") return;
    try { listener(...args); } catch (error) { console.error(`AgoraRTC: AgoraRTC.${name} threw`, error); }
  }

  let autoplayFailedSaid = false;
  /// Plays a media element; a play the browser refuses until the user interacts with the page is reported as the SDK
  /// does (onAutoplayFailed and "autoplay-failed" once until then; onAudioAutoplayFailed for each audible one) and
  /// retried at the page's next click.
  function playMedia(media, audible) {
    media.play().catch((error) => {
      if (!error || error.name !== "NotAllowedError") return;
      if (audible) callback("onAudioAutoplayFailed");
      document.addEventListener("click", () => { autoplayFailedSaid = false; media.play().catch(() => {}); },
                                { once: true, capture: true });
      if (autoplayFailedSaid) return;
      autoplayFailedSaid = true;
      callback("onAutoplayFailed");
      AgoraRTC.emit("autoplay-failed");
    });
  }

  const DEVICE_EVENTS = new Map([["videoinput", ["camera-changed", "onCameraChanged"]],
                                 ["audioinput", ["microphone-changed", "onMicrophoneChanged"]],
                                 ["audiooutput", ["playback-device-changed", "onPlaybackDeviceChanged"]]]);
  /// Follows the browser's devices: each one plugged in or out is a DeviceInfo to the matching callback and event.
  function watchDevices() {
    const devices = typeof navigator === "object" && navigator.mediaDevices;
    if (!devices || typeof devices.enumerateDevices !== "function" || typeof devices.addEventListener !== "function") return;
    const known = new Map();
    const key = (device) => `${device.kind}\u0000${device.deviceId}`;
    const look = (announce) => devices.enumerateDevices().then((list) => {
      const now = Date.now(), seen = new Set();
      for (const device of list) {
        seen.add(key(device));
        if (known.has(key(device))) continue;
        known.set(key(device), { initAt: now, device });
        if (announce) changed(device, "ACTIVE", now, now);
      }
      for (const [name, entry] of known) {
        if (seen.has(name)) continue;
        known.delete(name);
        changed(entry.device, "INACTIVE", entry.initAt, now);
      }
    }, () => {});
    const changed = (device, state, initAt, updateAt) => {
      const names = DEVICE_EVENTS.get(device.kind);
      if (!names) return;
      const info = { updateAt, initAt, state, device };
      callback(names[1], info);
      AgoraRTC.emit(names[0], info);
    };
    look(false);
    devices.addEventListener("devicechange", () => look(true));
  }

  // MARK: video frames (Docs/hub-protocol.md, "Video frames")

  function encodeFrame(rgba, columns, rows) {
    const bytes = [HUB.version, 0, 0, 0, 0, columns, rows];
    const cells = columns * rows;
    const same = (a, b) => rgba[a * 4] === rgba[b * 4] && rgba[a * 4 + 1] === rgba[b * 4 + 1] && rgba[a * 4 + 2] === rgba[b * 4 + 2];
    for (let index = 0; index < cells;) {
      let run = 1;
      while (run < 255 && index + run < cells && same(index, index + run)) run += 1;
      bytes.push(run, rgba[index * 4], rgba[index * 4 + 1], rgba[index * 4 + 2]);
      index += run;
    }
    return new Uint8Array(bytes);
  }

  /// A frame from the hub as RGBA cells, or null when it does not read (that user's fault: it is dropped).
  function decodeFrame(bytes) {
    if (bytes.length < 7 || bytes.length > HUB.maxFrameBytes || bytes[0] !== HUB.version || !bytes[5] || !bytes[6]
        || (bytes.length - 7) % 4 !== 0) return null;
    const uid = ((bytes[1] << 24) | (bytes[2] << 16) | (bytes[3] << 8) | bytes[4]) >>> 0;
    const columns = bytes[5], rows = bytes[6], count = columns * rows;
    const cells = new Uint8ClampedArray(count * 4);
    let filled = 0;
    for (let offset = 7; offset < bytes.length; offset += 4) {
      const run = bytes[offset];
      if (run === 0 || filled + run > count) return null;
      for (let cell = filled; cell < filled + run; cell += 1) {
        cells[cell * 4] = bytes[offset + 1];
        cells[cell * 4 + 1] = bytes[offset + 2];
        cells[cell * 4 + 2] = bytes[offset + 3];
        cells[cell * 4 + 3] = 255;
      }
      filled += run;
    }
    return filled === count ? { uid, columns, rows, cells } : null;
  }

  /// Takes a camera's picture down to the hub's frame size (cropped to its shape), as a frame to send.
  class FrameSampler {
    constructor(track) {
      this.video = document.createElement("video");
      this.video.muted = true;
      this.video.playsInline = true;
      this.source = track.getMediaStreamTrack();
      this.video.srcObject = new MediaStream([this.source]);
      this.video.play().catch(() => {});
      this.canvas = document.createElement("canvas");
      this.canvas.width = HUB.columns;
      this.canvas.height = HUB.rows;
      this.context = this.canvas.getContext("2d", { willReadFrequently: true });
    }
    sample() {
      const video = this.video, width = video.videoWidth, height = video.videoHeight;
      if (video.readyState < 2 || !width || !height) return null;
      const shape = HUB.columns / HUB.rows;
      let sw = width, sh = height;
      if (width / height > shape) sw = height * shape; else sh = width / shape;
      this.context.drawImage(video, (width - sw) / 2, (height - sh) / 2, sw, sh, 0, 0, HUB.columns, HUB.rows);
      return encodeFrame(this.context.getImageData(0, 0, HUB.columns, HUB.rows).data, HUB.columns, HUB.rows);
    }
    stop() {
      this.video.pause();
      this.video.srcObject = null;
    }
  }

  // MARK: tracks

  let tracksMade = 0;

  /// The picture a video element shows, as ImageData at its size; 2×2 of nothing before it shows one.
  function frameData(video) {
    const width = video ? video.videoWidth : 0, height = video ? video.videoHeight : 0;
    if (!width || !height || video.readyState < 2) return new ImageData(2, 2);
    const canvas = document.createElement("canvas");
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext("2d", { willReadFrequently: true });
    context.drawImage(video, 0, 0);
    return context.getImageData(0, 0, width, height);
  }

  class LocalTrack extends Emitter {
    constructor(kind, label, mediaStreamTrack) {
      super();
      this.trackMediaType = kind;
      this._id = `track-${label}-${++tracksMade}`;
      this._enabled = true;
      this._muted = false;
      this._closed = false;
      this._player = null;
      this._use(mediaStreamTrack);
    }
    getTrackId() { return this._id; }
    getMediaStreamTrack() { return this._track; }
    getTrackLabel() { return this._track.label; }
    get enabled() { return this._enabled; }
    get muted() { return this._muted; }
    get isPlaying() { return this._player !== null; }
    get _sending() { return this._enabled && !this._muted && !this._closed; }
    async setEnabled(enabled) {
      if (typeof enabled !== "boolean") throw fail("INVALID_PARAMS", "setEnabled takes true or false");
      this._enabled = enabled;
      this._track.enabled = this._sending;
      if (this._publisher) await this._publisher._tellMedia();
    }
    async setMuted(muted) {
      if (typeof muted !== "boolean") throw fail("INVALID_PARAMS", "setMuted takes true or false");
      this._muted = muted;
      this._track.enabled = this._sending;
      if (this._publisher) await this._publisher._tellMedia();
    }
    play() {}
    stop() {
      if (this._player) this._player.div.remove();
      this._player = null;
    }
    close() {
      this.stop();
      this._closed = true;
      this._track.stop();
    }
    /// Takes a new MediaStreamTrack from the browser (after setDevice): the old one stops, a player follows.
    _use(mediaStreamTrack) {
      const old = this._track;
      this._track = mediaStreamTrack;
      mediaStreamTrack.enabled = this._sending;
      mediaStreamTrack.addEventListener("ended", () => { if (this._track === mediaStreamTrack) this.emit("track-ended"); });
      if (old && old !== mediaStreamTrack) old.stop();
      if (this._player) this._player.video.srcObject = new MediaStream([mediaStreamTrack]);
    }
    /// Switches to another device: its id (from AgoraRTC.getCameras/getMicrophones) or, for a camera,
    /// { facingMode } or { deviceId }.
    async setDevice(device) {
      if (this._closed) throw fail("INVALID_OPERATION", "setDevice on a closed track");
      const constraint = this._deviceConstraint(device);
      const stream = await userMedia({ [this.trackMediaType]: Object.assign({}, this._constraints, constraint) });
      this._use(this.trackMediaType === "video" ? stream.getVideoTracks()[0] : stream.getAudioTracks()[0]);
    }
    _deviceConstraint(device) {
      if (typeof device === "string" && device !== "") return { deviceId: { exact: device } };
      throw fail("INVALID_PARAMS", "setDevice takes a device id from AgoraRTC.getDevices");
    }
    async getStats() { return {}; }
  }

  // Agora's camera presets, as the Web SDK's reference lists them (VideoEncoderConfigurationPreset, checked against
  // api-ref.agora.io's 4.x table): [width, height, frames per second, kbps].
  const VIDEO_PRESETS = new Map([
    ["120p", [160, 120, 15, 65]], ["120p_1", [160, 120, 15, 65]], ["120p_3", [120, 120, 15, 50]],
    ["180p", [320, 180, 15, 140]], ["180p_1", [320, 180, 15, 140]], ["180p_3", [180, 180, 15, 100]], ["180p_4", [240, 180, 15, 120]],
    ["240p", [320, 240, 15, 200]], ["240p_1", [320, 240, 15, 200]], ["240p_3", [240, 240, 15, 140]], ["240p_4", [424, 240, 15, 220]],
    ["360p", [640, 360, 15, 400]], ["360p_1", [640, 360, 15, 400]], ["360p_3", [360, 360, 15, 260]], ["360p_4", [640, 360, 30, 600]],
    ["360p_6", [360, 360, 30, 400]], ["360p_7", [480, 360, 15, 320]], ["360p_8", [480, 360, 30, 490]],
    ["360p_9", [640, 360, 15, 800]], ["360p_10", [640, 360, 24, 800]], ["360p_11", [640, 360, 24, 1000]],
    ["480p", [640, 480, 15, 500]], ["480p_1", [640, 480, 15, 500]], ["480p_2", [640, 480, 30, 1000]], ["480p_3", [480, 480, 15, 400]],
    ["480p_4", [640, 480, 30, 750]], ["480p_6", [480, 480, 30, 600]], ["480p_8", [848, 480, 15, 610]], ["480p_9", [848, 480, 30, 930]],
    ["480p_10", [640, 480, 10, 400]],
    ["720p", [1280, 720, 15, 1130]], ["720p_1", [1280, 720, 15, 1130]], ["720p_2", [1280, 720, 30, 2000]],
    ["720p_3", [1280, 720, 30, 1710]], ["720p_auto", [1280, 720, 30, 3000]], ["720p_5", [960, 720, 15, 910]], ["720p_6", [960, 720, 30, 1380]],
    ["1080p", [1920, 1080, 15, 2080]], ["1080p_1", [1920, 1080, 15, 2080]], ["1080p_2", [1920, 1080, 30, 3000]],
    ["1080p_3", [1920, 1080, 30, 3150]], ["1080p_5", [1920, 1080, 60, 4780]],
  ]);

  /// A camera's encoder configuration, a preset's name or { width, height, frameRate, bitrateMin, bitrateMax }, as
  /// what it asks of the camera; the bitrates mean nothing here (the hub carries 32×18 cells) and are only checked.
  function encoderConstraints(config) {
    if (typeof config === "string") {
      const preset = VIDEO_PRESETS.get(config);
      if (!preset) throw fail("INVALID_PARAMS", `encoderConfig "${config}" is not one of Agora's presets (${[...VIDEO_PRESETS.keys()].join(", ")})`);
      return { width: preset[0], height: preset[1], frameRate: preset[2] };
    }
    if (config === null || typeof config !== "object") throw fail("INVALID_PARAMS", "encoderConfig must be a preset's name or an object");
    const constraints = {};
    for (const name of ["width", "height", "frameRate"]) {
      const value = config[name];
      if (value === undefined) continue;
      const numbers = typeof value === "number" ? [value] : value !== null && typeof value === "object"
        ? ["min", "max", "ideal", "exact"].map((key) => value[key]).filter((number) => number !== undefined) : null;
      if (!numbers || numbers.some((number) => typeof number !== "number" || !(number > 0) || number > 10000)) {
        throw fail("INVALID_PARAMS", `encoderConfig.${name} must be a positive number or { min, max, ideal, exact }`);
      }
      constraints[name] = value;
    }
    for (const name of ["bitrateMin", "bitrateMax"]) {
      if (config[name] !== undefined && (typeof config[name] !== "number" || !(config[name] > 0))) {
        throw fail("INVALID_PARAMS", `encoderConfig.${name} must be a positive number of kbps`);
      }
    }
    return constraints;
  }

  class LocalVideoTrack extends LocalTrack {
    constructor(mediaStreamTrack, label = "cam", constraints = {}) {
      super("video", label, mediaStreamTrack);
      this._constraints = constraints;
    }
    /// A <video> of the camera inside the element (an element or its id), mirrored unless config.mirror is false.
    play(target, config = {}) {
      this.stop();
      this._player = player(target, this._id, new MediaStream([this._track]), config, config && config.mirror !== false);
    }
    /// The picture being played (ImageData at the camera's size); null when the track is not playing, as the SDK says.
    getCurrentFrameData() { return this._player ? this._picture() : null; }
    _picture() {
      if (!this._reader) {
        this._reader = document.createElement("video");
        this._reader.muted = true;
        this._reader.playsInline = true;
      }
      if (!this._reader.srcObject || this._reader.srcObject.getVideoTracks()[0] !== this._track) {
        this._reader.srcObject = new MediaStream([this._track]);
        this._reader.play().catch(() => {});
      }
      return frameData(this._player ? this._player.video : this._reader);
    }
    async setEncoderConfiguration(config) {
      const constraints = encoderConstraints(config);
      this._constraints = constraints;
      try {
        await this._track.applyConstraints(constraints);
      } catch (error) {
        throw fail("CONSTRAINT_NOT_SATISFIED", `the camera cannot give ${JSON.stringify(constraints)}: ${error && error.message}`);
      }
    }
    _deviceConstraint(device) {
      if (device !== null && typeof device === "object") {
        if (typeof device.deviceId === "string" && device.deviceId !== "" && device.facingMode === undefined) return { deviceId: { exact: device.deviceId } };
        if ((device.facingMode === "user" || device.facingMode === "environment") && device.deviceId === undefined) return { facingMode: { exact: device.facingMode } };
        throw fail("INVALID_PARAMS", 'setDevice takes a device id, { deviceId } or { facingMode: "user" | "environment" }');
      }
      return super._deviceConstraint(device);
    }
    async setOptimizationMode(mode) {
      if (!["motion", "detail", "balanced"].includes(mode)) throw fail("INVALID_PARAMS", 'the optimization mode is "motion", "detail" or "balanced"');
    }
  }

  /// A microphone: published and muted here alone (the hub carries no audio, Docs/web.md); its level is measured.
  class MicrophoneAudioTrack extends LocalTrack {
    constructor(mediaStreamTrack) {
      super("audio", "mic", mediaStreamTrack);
      this._volume = 100;
      this._constraints = {};
    }
    setVolume(volume) {
      if (!Number.isInteger(volume) || volume < 0 || volume > 1000) throw fail("INVALID_PARAMS", "volume is an integer from 0 to 1000");
      this._volume = volume;
    }
    /// The microphone's level, from 0 to 1 (0 while muted or disabled).
    getVolumeLevel() {
      if (!this._sending || typeof AudioContext !== "function") return 0;
      if (!this._meter || this._meter.track !== this._track) {
        if (this._meter) this._meter.context.close();
        const context = new AudioContext();
        const analyser = context.createAnalyser();
        analyser.fftSize = 32768;  // the loudest of the last ~0.7 s: a short sound between two readings still counts
        context.createMediaStreamSource(new MediaStream([this._track])).connect(analyser);
        this._meter = { track: this._track, context, analyser, samples: new Float32Array(analyser.fftSize) };
      }
      // A page's audio starts with the person's first click or key (the browser's autoplay rule): silent until then.
      if (this._meter.context.state === "suspended") this._meter.context.resume().catch(() => {});
      const { analyser, samples } = this._meter;
      analyser.getFloatTimeDomainData(samples);
      let peak = 0;
      for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
      return Math.min(1, peak * this._volume / 100);
    }
    close() {
      if (this._meter) this._meter.context.close();
      this._meter = null;
      super.close();
    }
  }

  const playerId = (uid) => String(uid).replace(/[^A-Za-z0-9_-]/g, "_");

  /// A remote user's audio: the hub carries its published and muted states, never its sound (Docs/web.md), so play()
  /// makes a quiet tone of the user's own pitch while the user sends, and a person hears who is "speaking".
  class RemoteAudioTrack extends Emitter {
    constructor(user, hubUid) {
      super();
      this.trackMediaType = "audio";
      this._user = user;
      this._id = `track-audio-${playerId(user.uid)}-${++tracksMade}`;
      this._pitch = 220 + (hubUid % 24) * 20;
      this._volume = 100;
      this._sound = null;
      this._sending = true;
    }
    getTrackId() { return this._id; }
    getUserId() { return this._user.uid; }
    get isPlaying() { return this._sound !== null; }
    play() {
      if (this._sound || typeof AudioContext !== "function") return;
      const context = new AudioContext();
      const tone = context.createOscillator(), gain = context.createGain();
      tone.frequency.value = this._pitch;
      tone.connect(gain).connect(context.destination);
      tone.start();
      this._sound = { context, gain };
      this._level();
    }
    stop() {
      if (this._sound) this._sound.context.close();
      this._sound = null;
    }
    setVolume(volume) {
      if (!Number.isInteger(volume) || volume < 0 || volume > 1000) throw fail("INVALID_PARAMS", "volume is an integer from 0 to 1000");
      this._volume = volume;
      this._level();
    }
    /// The tone's level, 0 to 1: 0 while the user is muted or the track not played.
    getVolumeLevel() { return this._sound && this._sending ? Math.min(1, 0.3 * this._volume / 100) : 0; }
    getMediaStreamTrack() { return undefined; }
    _setSending(sending) {
      this._sending = sending;
      this._level();
    }
    _level() { if (this._sound) this._sound.gain.gain.value = this._sending ? 0.02 * this._volume / 100 : 0; }
    _close() { this.stop(); }
  }

  /// A remote user's video: the hub's frames drawn, CELL_PIXELS a cell, on a canvas whose captureStream() is the
  /// track's MediaStreamTrack, played in a <video> in the element given to play().
  class RemoteVideoTrack extends Emitter {
    constructor(user) {
      super();
      this.trackMediaType = "video";
      this._user = user;
      this._id = `track-video-${playerId(user.uid)}-${++tracksMade}`;
      this._player = null;
      this._frame = null;
      this._frames = 0;
      this._cells = document.createElement("canvas");
      this._canvas = document.createElement("canvas");
      this._canvas.width = HUB.columns * CELL_PIXELS;
      this._canvas.height = HUB.rows * CELL_PIXELS;
      this._stream = this._canvas.captureStream();
    }
    getUserId() { return this._user.uid; }
    getTrackId() { return this._id; }
    getMediaStreamTrack() { return this._stream.getVideoTracks()[0]; }
    get isPlaying() { return this._player !== null; }
    play(target, config = {}) {
      this.stop();
      this._player = player(target, this._id, this._stream, config, false);
    }
    stop() {
      if (this._player) this._player.div.remove();
      this._player = null;
    }
    /// The picture being played (ImageData at CELL_PIXELS a cell; 2×2 of nothing before the first frame); null when
    /// the track is not playing, as the SDK says.
    getCurrentFrameData() { return this._player ? this._picture() : null; }
    _picture() {
      if (!this._frame) return new ImageData(2, 2);
      return this._canvas.getContext("2d").getImageData(0, 0, this._canvas.width, this._canvas.height);
    }
    getStats() {
      const frame = this._frame;
      return { codecType: "VP8", receiveFrameRate: frame ? HUB.framesPerSecond : 0, decodeFrameRate: frame ? HUB.framesPerSecond : 0,
               renderFrameRate: this._player && frame ? HUB.framesPerSecond : 0,
               receiveResolutionWidth: frame ? frame.columns : 0, receiveResolutionHeight: frame ? frame.rows : 0,
               receiveBytes: this._bytes || 0, receivePackets: this._frames, receivePacketsLost: 0, packetLossRate: 0,
               transportDelay: 0, end2EndDelay: 0, receiveDelay: 0, totalFreezeTime: 0, freezeRate: 0,
               totalDuration: this._since ? Math.round((Date.now() - this._since) / 1000) : 0 };
    }
    _draw(frame, bytes) {
      this._frame = frame;
      this._frames += 1;
      this._bytes = (this._bytes || 0) + (bytes || 0);
      if (!this._since) this._since = Date.now();
      const cells = this._cells, canvas = this._canvas;
      if (cells.width !== frame.columns || cells.height !== frame.rows) {
        cells.width = frame.columns;
        cells.height = frame.rows;
      }
      cells.getContext("2d").putImageData(new ImageData(frame.cells, frame.columns, frame.rows), 0, 0);
      if (canvas.width !== frame.columns * CELL_PIXELS || canvas.height !== frame.rows * CELL_PIXELS) {
        canvas.width = frame.columns * CELL_PIXELS;
        canvas.height = frame.rows * CELL_PIXELS;
      }
      const context = canvas.getContext("2d");
      context.imageSmoothingEnabled = false;
      context.drawImage(cells, 0, 0, canvas.width, canvas.height);
      if (this._frames === 1) this.emit("first-frame-decoded");
    }
    /// The user is gone or unsubscribed: nothing more is drawn, and the stream ends.
    _close() {
      this.stop();
      for (const track of this._stream.getTracks()) track.stop();
    }
  }

  async function userMedia(constraints) {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw fail("NOT_SUPPORTED", "this page cannot use a camera or microphone: serve it over https, or from localhost or 127.0.0.1");
    }
    try {
      return await navigator.mediaDevices.getUserMedia(constraints);
    } catch (error) {
      throw mediaError(error);
    }
  }

  /// The SDK's error for the browser's refusal of a camera, microphone or screen.
  function mediaError(error) {
    const name = error && error.name;
    const code = name === "NotAllowedError" ? "PERMISSION_DENIED"
      : name === "NotFoundError" || name === "OverconstrainedError" ? "DEVICE_NOT_FOUND"
      : name === "NotReadableError" ? "NOT_READABLE" : "UNEXPECTED_ERROR";
    return fail(code, `${name}: ${error && error.message}`);
  }

  /// A config object or nothing; anything else is the SDK's INVALID_PARAMS.
  function options(config, call) {
    if (config === undefined) return {};
    if (config === null || typeof config !== "object") throw fail("INVALID_PARAMS", `${call}'s config must be an object`);
    return config;
  }

  function videoConstraints(config) {
    const video = config.encoderConfig === undefined ? {} : encoderConstraints(config.encoderConfig);
    if (config.cameraId !== undefined) {
      if (typeof config.cameraId !== "string") throw fail("INVALID_PARAMS", "cameraId must be a device id, a string");
      video.deviceId = { exact: config.cameraId };
    }
    if (config.facingMode !== undefined) {
      if (config.facingMode !== "user" && config.facingMode !== "environment") throw fail("INVALID_PARAMS", 'facingMode is "user" or "environment"');
      video.facingMode = config.facingMode;
    }
    return video;
  }

  function audioConstraints(config) {
    if (config.microphoneId === undefined) return {};
    if (typeof config.microphoneId !== "string") throw fail("INVALID_PARAMS", "microphoneId must be a device id, a string");
    return { deviceId: { exact: config.microphoneId } };
  }

  /// A screen, window or tab the person picks, as a video track (and its audio, with withAudio "enable" or "auto").
  async function screenTracks(config, withAudio) {
    config = options(config, "createScreenVideoTrack");
    if (!["enable", "disable", "auto"].includes(withAudio)) throw fail("INVALID_PARAMS", 'withAudio is "enable", "disable" or "auto"');
    const video = config.encoderConfig === undefined ? {} : encoderConstraints(config.encoderConfig);
    if (!navigator.mediaDevices || typeof navigator.mediaDevices.getDisplayMedia !== "function") {
      throw fail("NOT_SUPPORTED", "this browser cannot share a screen (getDisplayMedia)");
    }
    let stream;
    try {
      stream = await navigator.mediaDevices.getDisplayMedia({ video: Object.keys(video).length ? video : true, audio: withAudio !== "disable" });
    } catch (error) {
      throw mediaError(error);
    }
    const track = new LocalVideoTrack(stream.getVideoTracks()[0], "screen", video);
    const audio = stream.getAudioTracks()[0];
    if (withAudio === "enable" && !audio) {
      track.close();
      throw fail("SHARE_AUDIO_NOT_ALLOWED", 'the person did not tick "Share audio"');
    }
    if (withAudio === "disable" || !audio) return track;
    return [track, new LocalAudioTrack(audio, "screen-audio")];
  }

  /// A local audio track that is not a microphone (a shared screen's sound).
  class LocalAudioTrack extends LocalTrack {
    constructor(mediaStreamTrack, label) { super("audio", label, mediaStreamTrack); }
  }

  // MARK: the hub's notices (Docs/hub-protocol.md, "Hub → client")

  const isUid = (value) => Number.isInteger(value) && value >= 0 && value <= 4294967295;
  const isPeer = (value) => value !== null && typeof value === "object" && isUid(value.uid)
    && (value.account === undefined || typeof value.account === "string");

  /// Whether the notice names one of `codes`' values as `member` (its name) and `memberCode` (that name's number).
  function names(notice, member, codes) {
    const name = notice[member];
    return typeof name === "string" && codes.has(name) && codes.get(name) === notice[member + "Code"];
  }

  /// A published track's states as the hub carries them (Docs/hub-protocol.md, "Audio and video states").
  const TRACK_STATES = ["off", "on", "muted"];

  /// What is wrong with a notice, as the terminal's client would refuse it, or "" when it reads: every member this
  /// script uses is checked, and an Agora value it does not know is never taken for a near one.
  function noticeProblem(notice) {
    if (notice === null || typeof notice !== "object" || Array.isArray(notice)) return "a text message that is not a JSON object";
    switch (notice.type) {
      case "joined":
        return isUid(notice.uid) && Array.isArray(notice.users) && notice.users.every(isPeer) ? ""
          : "joined without its uid and its users [{uid, account?}]";
      case "userJoined":
        return isPeer(notice) ? "" : "userJoined without a uid (and an account, if any, as a string)";
      case "userOffline":
        return !isUid(notice.uid) ? "userOffline without a uid"
          : names(notice, "reason", CODES.offline) ? "" : "userOffline's reason and reasonCode are not one of Agora's reasons";
      case "userMedia":
        return isUid(notice.uid) && TRACK_STATES.includes(notice.audio) && TRACK_STATES.includes(notice.video) ? ""
          : "userMedia without a uid and its audio and video (off, on or muted)";
      case "clientRoleChanged": case "tokenPrivilegeWillExpire":
        return "";
      case "renewTokenResult":
        return names(notice, "result", CODES.renewal) ? "" : "renewTokenResult's result and resultCode are not one of Agora's results";
      case "connectionStateChanged":
        if (!names(notice, "state", CODES.state)) return "connectionStateChanged's state and stateCode are not one of Agora's states";
        if (!names(notice, "reason", CODES.reason)) return "connectionStateChanged's reason and reasonCode are not one of Agora's reasons";
        return (notice.error === undefined && notice.errorCode === undefined) || names(notice, "error", CODES.error) ? ""
          : "connectionStateChanged's error and errorCode are not one of Agora's error codes";
      case "error":
        return typeof notice.message === "string" ? "" : "error without a message";
      default:
        return "a notice of a type the hub does not send";
    }
  }

  // MARK: the hub link

  /// One WebSocket to the hub for one stay in a channel: requests as JSON, frames as binary, a ping every few
  /// seconds (a browser cannot send WebSocket pings, and the hub drops a silent connection).
  class HubLink {
    constructor(channel, handlers) {
      const url = new URL(HUB.path, scriptURL);
      url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
      // Escaped, the hub would refuse it (a balancer hashes it as sent): a name that needs escaping goes without.
      url.search = channel && [...channel].every((c) => HUB.routable.includes(c)) ? "?channel=" + channel : "";
      this.url = url.origin.replace(/^http/, "ws") + url.pathname;
      this.handlers = handlers;
      this.isOpen = false;
      this.closed = false;
      this.socket = new WebSocket(url.href);
      this.socket.binaryType = "arraybuffer";
      this.socket.onopen = () => {
        this.isOpen = true;
        this.pinger = setInterval(() => this.send({ type: "ping" }), HUB.pingMs);
        handlers.open();
      };
      this.socket.onmessage = (message) => {
        if (this.closed) return;
        if (typeof message.data === "string") {
          let notice;
          try { notice = JSON.parse(message.data); } catch (error) { return this._broken("a text message that is not JSON"); }
          const problem = noticeProblem(notice);
          if (problem) return this._broken(problem);
          handlers.notice(notice);
        } else {
          handlers.frame(new Uint8Array(message.data));
        }
      };
      this.socket.onclose = (event) => this._ended(event.code);
      this.socket.onerror = () => {};
    }
    get queued() { return this.socket.bufferedAmount; }
    send(request) { if (this.isOpen && !this.closed) this.socket.send(JSON.stringify(request)); }
    sendFrame(bytes) {
      // Video gives way: a frame goes only when nothing waits.
      if (!this.isOpen || this.closed || this.socket.bufferedAmount !== 0) return false;
      this.socket.send(bytes);
      return true;
    }
    close() {
      if (this.closed) return;
      this.closed = true;
      clearInterval(this.pinger);
      try { this.socket.close(1000); } catch (error) { /* already closing */ }
    }
    _ended(code) {
      if (this.closed) return;
      this.closed = true;
      clearInterval(this.pinger);
      this.handlers.closed(code, this.isOpen);
    }
    /// The hub broke the protocol: the link is closed and reported as ended, with what was wrong.
    _broken(problem) {
      this.close();
      this.handlers.closed(1000, this.isOpen, `the hub at ${this.url} sent what this SDK cannot read: ${problem}`);
    }
  }

  // MARK: the client

  class Client extends Emitter {
    constructor(config) {
      super();
      if (!config || (config.mode !== "rtc" && config.mode !== "live")) {
        throw fail("INVALID_PARAMS", 'createClient needs mode "rtc" or "live"');
      }
      if (!["vp8", "vp9", "h264", "h265", "av1"].includes(config.codec)) {
        throw fail("INVALID_PARAMS", 'createClient needs codec "vp8", "vp9", "h264", "h265" or "av1"');
      }
      if (config.role !== undefined && config.role !== "host" && config.role !== "audience") {
        throw fail("INVALID_PARAMS", `role must be "host" or "audience", not ${config.role}`);
      }
      if (config.clientRoleOptions !== undefined) checkRoleOptions(config.clientRoleOptions);
      this.mode = config.mode;
      this.codec = config.codec;
      this._role = config.mode === "live" ? (config.role === "host" ? "host" : "audience") : "host";
      this.connectionState = "DISCONNECTED";
      this.uid = undefined;
      this.channelName = undefined;
      this.remoteUsers = [];
      this.localTracks = [];
      this._session = null;
      this._proxyMode = null;
      this._dualStream = false;
      this._volumeIndicator = false;
    }

    get role() { return this._role; }

    _setState(state, reason) {
      const previous = this.connectionState;
      if (previous === state) return;
      this.connectionState = state;
      if (state === "DISCONNECTED") this.emit("connection-state-change", state, previous, reason);
      else this.emit("connection-state-change", state, previous);
    }

    async join(appid, channel, token, uid) {
      checkJoin(appid, channel, token);
      const user = userFields(uid);
      if (this.connectionState !== "DISCONNECTED") {
        throw fail("INVALID_OPERATION", "Client already in connecting/connected state");
      }
      const session = {
        appid, channel, user, token: token === undefined ? null : token, hubUid: 0, link: null,
        remote: new Map(), lastFrame: new Map(), media: new Map(), renewals: [], roleChange: null, leaving: null, abort: null, mediaAnswers: [],
        timers: [], sampler: null, saidPastUserLimit: false, joinedAt: 0, rtt: 0, sent: 0, received: 0, framesSent: 0,
      };
      this._session = session;
      this._setState("CONNECTING");
      let joined;
      try {
        joined = await this._connect(session);
      } catch (error) {
        this._end(session, "LEAVE");
        throw error;
      }
      this._joined(session, joined, false);
      return this.uid;
    }

    /// Opens a link and joins on it; resolves with the hub's `joined`, rejects with the SDK's error.
    _connect(session) {
      return new Promise((resolve, reject) => {
        let settled = false;
        const settle = (error, joined) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          session.abort = null;
          if (error) { link.close(); reject(error); } else resolve(joined);
        };
        const timer = setTimeout(() => settle(fail("NETWORK_TIMEOUT", `the hub at ${link.url} did not answer the join within ${JOIN_TIMEOUT_MS / 1000} s`)),
                                 JOIN_TIMEOUT_MS);
        session.abort = settle;
        const link = new HubLink(session.channel, {
          open: () => {
            const request = { type: "join", appId: session.appid, channel: session.channel, token: session.token || "",
                              role: this._role === "host" ? "broadcaster" : "audience", ...this._mediaStates() };
            Object.assign(request, session.user.account !== undefined ? session.user : { uid: session.hubUid || session.user.uid });
            session.askedAt = Date.now();
            link.send(request);
          },
          notice: (notice) => {
            if (!settled) {
              if (notice.type === "joined") return settle(null, notice);
              if (notice.type === "connectionStateChanged") return settle(this._refusal(session, notice));
              if (notice.type === "error") return settle(fail("UNEXPECTED_RESPONSE", `the hub refused the join: ${notice.message}`));
              return;
            }
            if (this._session === session && session.link === link) this._notice(session, notice);
          },
          frame: (bytes) => { if (settled && this._session === session && session.link === link) this._frame(session, bytes); },
          closed: (code, opened, problem) => {
            if (!settled) {
              if (problem) return settle(fail("UNEXPECTED_RESPONSE", problem));
              return settle(fail("WS_ERR", opened ? `the hub at ${link.url} closed the connection (${code})`
                : `could not open the hub at ${link.url}: is this page's origin (${location.origin}) one that tokencall serve allows (--cors-origin)?`));
            }
            if (this._session !== session || session.link !== link) return;
            if (problem) console.warn(`AgoraRTC: ${problem}; connecting again`);
            this._lost(session);
          },
        });
        session.link = link;
      });
    }

    /// The SDK's error for a join the hub refused.
    _refusal(session, notice) {
      switch (notice.errorCode) {
        case 110: return gatewayError(session.token ? 110 : 120);
        case 109: case 101: return gatewayError(notice.errorCode);
        case 102: return fail("INVALID_PARAMS", "the channel name is not one Agora accepts");
        case 134: return fail("INVALID_PARAMS", "the string uid is not a user account Agora accepts");
        case 17: return fail("UID_CONFLICT", "the uid is another user's in this channel");
        default: return fail("UNEXPECTED_RESPONSE", `the hub refused the join: ${notice.reason}`);
      }
    }

    _joined(session, joined, again) {
      session.hubUid = joined.uid;
      session.rtt = Date.now() - session.askedAt;
      if (!again) session.joinedAt = Date.now();
      this.uid = session.user.account !== undefined ? session.user.account : joined.uid;
      this.channelName = session.channel;
      const before = new Map(session.remote);
      session.remote = new Map();
      this.remoteUsers = [];
      const announced = [];
      for (const peer of joined.users) {
        if (peer.uid === joined.uid || session.remote.has(peer.uid)) continue;
        if (session.remote.size >= HUB.userLimit) { this._pastUserLimit(session); break; }
        const user = before.get(peer.uid) || { uid: peer.account !== undefined ? peer.account : peer.uid, hasVideo: false, hasAudio: false,
                                               videoTrack: undefined, audioTrack: undefined };
        session.remote.set(peer.uid, user);
        this.remoteUsers.push(user);
        if (!before.has(peer.uid)) announced.push(user);
        before.delete(peer.uid);
      }
      if (!again) {
        session.timers.push(setInterval(() => this._quality(session), QUALITY_EVERY_MS));
        session.timers.push(setInterval(() => this._checkVideo(session), 1000));
        session.timers.push(setInterval(() => this._sendVideo(session), 1000 / HUB.framesPerSecond));
        session.timers.push(setInterval(() => this._volumes(session), VOLUMES_EVERY_MS));
      }
      this._setState("CONNECTED");
      if (!again && this._proxyMode !== null) setTimeout(() => this.emit("is-using-cloud-proxy", false), 0);
      // After join's promise: the users already there are announced as Agora does, once the app has its uid.
      setTimeout(() => {
        if (this._session !== session) return;
        for (const user of before.values()) this._left(session, user, "ServerTimeOut");
        for (const user of announced) this.emit("user-joined", user);
      }, 0);
    }

    /// The link broke while in the channel: reconnecting, joining again with the token, for a while.
    async _lost(session) {
      session.link = null;
      // The join after the reconnect carries the states now: what waited for the lost link's answer is done.
      for (const answer of session.mediaAnswers.splice(0)) answer.resolve();
      this._setState("RECONNECTING");
      const started = Date.now();
      for (let wait = 500; this._session === session; wait = Math.min(wait * 2, 8000)) {
        await new Promise((resolve) => setTimeout(resolve, wait));
        if (this._session !== session) return;
        try {
          const joined = await this._connect(session);
          if (this._session !== session) { session.link && session.link.close(); return; }
          return this._joined(session, joined, true);
        } catch (error) {
          if (this._session !== session) return;
          if (error.code === "CAN_NOT_GET_GATEWAY_SERVER" && error.data && error.data.desc === GATEWAY_REASONS.get(109)) {
            this._end(session, "TOKEN_EXPIRE");
            return this.emit("token-privilege-did-expire");
          }
          if (error.code !== "WS_ERR" && error.code !== "NETWORK_TIMEOUT") return this._end(session, "SERVER_ERROR");
          if (Date.now() - started > RECONNECT_FOR_MS) return this._end(session, "NETWORK_ERROR");
        }
      }
    }

    /// Out of the channel: the link closed, requests under way refused, remote users and publishing forgotten.
    _end(session, reason) {
      if (this._session !== session) return;
      this._session = null;
      if (session.abort) session.abort(fail("OPERATION_ABORTED", "cancel token canceled"));
      if (session.link) session.link.close();
      for (const timer of session.timers) clearInterval(timer);
      if (session.sampler) session.sampler.stop();
      const aborted = fail("OPERATION_ABORTED", "the client left the channel");
      for (const renewal of session.renewals) renewal.reject(aborted);
      for (const answer of session.mediaAnswers) answer.reject(aborted);
      for (const track of this.localTracks) track._publisher = null;
      if (session.roleChange) session.roleChange.reject(aborted);
      if (session.leaving) session.leaving();
      for (const user of session.remote.values()) {
        if (user.videoTrack) user.videoTrack._close();
        if (user.audioTrack) user.audioTrack._close();
      }
      this._volumeIndicator = false;
      this.remoteUsers = [];
      this.localTracks = [];
      this.uid = undefined;
      this.channelName = undefined;
      this._setState("DISCONNECTED", reason);
    }

    _notice(session, notice) {
      if (this.connectionState === "DISCONNECTING") {
        if ((notice.type === "connectionStateChanged" || notice.type === "error") && session.leaving) session.leaving();
        return;
      }
      switch (notice.type) {
        case "userJoined": {
          if (session.remote.has(notice.uid) || notice.uid === session.hubUid) return;
          if (session.remote.size >= HUB.userLimit) return this._pastUserLimit(session);
          const user = { uid: notice.account !== undefined ? notice.account : notice.uid, hasVideo: false, hasAudio: false,
                         videoTrack: undefined, audioTrack: undefined };
          session.remote.set(notice.uid, user);
          this.remoteUsers.push(user);
          return this.emit("user-joined", user);
        }
        case "userOffline": {
          const user = session.remote.get(notice.uid);
          if (!user) return;
          session.remote.delete(notice.uid);
          return this._left(session, user, LEFT_REASONS.get(notice.reason), notice.uid);
        }
        case "userMedia":
          if (notice.uid === session.hubUid) {
            const answer = session.mediaAnswers.shift();
            return answer && answer.resolve();
          }
          return this._userMedia(session, notice);
        case "clientRoleChanged":
          if (session.roleChange) session.roleChange.resolve();
          session.roleChange = null;
          return;
        case "tokenPrivilegeWillExpire":
          return this.emit("token-privilege-will-expire");
        case "renewTokenResult": {
          const renewal = session.renewals.shift();
          if (!renewal) return;
          if (notice.result === "success") {
            session.token = renewal.token;
            return renewal.resolve();
          }
          const [message, code] = notice.result === "tokenExpired" ? ["ERR_TOKEN_EXPIRED", 109] : ["ERR_NO_AUTHORIZED", 110];
          return renewal.reject(fail("UNEXPECTED_RESPONSE", message, { code, desc: notice.result }));
        }
        case "connectionStateChanged":
          if (notice.reason === "tokenExpired") {
            this._end(session, "TOKEN_EXPIRE");
            return this.emit("token-privilege-did-expire");
          }
          return this._end(session, notice.reason === "sameUidLogin" ? "UID_BANNED" : "SERVER_ERROR");
        case "error":
          if (session.mediaAnswers.length && notice.message.startsWith("too many audio and video changes")) {
            return session.mediaAnswers.shift().reject(fail("UNEXPECTED_RESPONSE", notice.message));
          }
          if (session.roleChange) {
            session.roleChange.reject(fail("UNEXPECTED_RESPONSE", notice.message));
            session.roleChange = null;
            return;
          }
          return console.warn(`AgoraRTC: the hub says: ${notice.message}`);
      }
    }

    /// The hub named more users than HUB.userLimit: those past it are not announced (said once per stay).
    _pastUserLimit(session) {
      if (session.saidPastUserLimit) return;
      session.saidPastUserLimit = true;
      console.warn(`AgoraRTC: the hub names more than ${HUB.userLimit} users in ${session.channel}; the others are not announced`);
    }

    _left(session, user, reason, hubUid) {
      const index = this.remoteUsers.indexOf(user);
      if (index >= 0) this.remoteUsers.splice(index, 1);
      if (hubUid !== undefined) session.lastFrame.delete(hubUid);
      if (user.hasAudio) {
        user.hasAudio = false;
        if (user.audioTrack) user.audioTrack._close();
        user.audioTrack = undefined;
        this.emit("user-unpublished", user, "audio");
      }
      if (user.hasVideo) {
        user.hasVideo = false;
        if (user.videoTrack) user.videoTrack._close();
        user.videoTrack = undefined;
        this.emit("user-unpublished", user, "video");
      }
      this.emit("user-left", user, reason);
    }

    /// The local tracks' states as the hub carries them: a published microphone (or other audio) and video track,
    /// each "on", "muted" (muted or disabled) or "off" (none published).
    _mediaStates() {
      const state = (kind) => {
        const track = this.localTracks.find((candidate) => candidate.trackMediaType === kind);
        return !track ? "off" : track._sending ? "on" : "muted";
      };
      return { audio: state("audio"), video: state("video") };
    }

    /// Tells the hub the local states; resolves with its answer (the round trip the SDK's publish waits for).
    async _tellMedia() {
      const session = this._session;
      if (!session || !session.link || this.connectionState !== "CONNECTED") return;
      await new Promise((resolve, reject) => {
        session.mediaAnswers.push({ resolve, reject });
        session.link.send({ type: "media", ...this._mediaStates() });
      });
    }

    /// A remote user's states: `user-published` / `user-unpublished` for its audio, `user-info-updated` for mutes.
    _userMedia(session, notice) {
      const user = session.remote.get(notice.uid);
      if (!user) return;
      const was = session.media.get(notice.uid) || { audio: "off", video: "on" };
      session.media.set(notice.uid, { audio: notice.audio, video: notice.video });
      if (notice.audio !== "off" && !user.hasAudio) {
        user.hasAudio = true;
        this.emit("user-published", user, "audio");
      } else if (notice.audio === "off" && user.hasAudio) {
        user.hasAudio = false;
        if (user.audioTrack) user.audioTrack._close();
        user.audioTrack = undefined;
        this.emit("user-unpublished", user, "audio");
      }
      if (user.audioTrack) user.audioTrack._setSending(notice.audio === "on");
      for (const kind of ["audio", "video"]) {
        if (was[kind] !== "muted" && notice[kind] === "muted") this.emit("user-info-updated", user.uid, `mute-${kind}`);
        if (was[kind] === "muted" && notice[kind] === "on") this.emit("user-info-updated", user.uid, `unmute-${kind}`);
      }
    }

    _frame(session, bytes) {
      const frame = decodeFrame(bytes);
      if (!frame) return;
      const user = session.remote.get(frame.uid);
      if (!user) return;
      session.lastFrame.set(frame.uid, { frame, at: Date.now() });
      if (!user.hasVideo) {
        user.hasVideo = true;
        this.emit("user-published", user, "video");
      }
      session.received += bytes.length;
      if (user.videoTrack) user.videoTrack._draw(frame, bytes.length);
    }

    _checkVideo(session) {
      const now = Date.now();
      for (const [hubUid, user] of session.remote) {
        const last = session.lastFrame.get(hubUid);
        if (!user.hasVideo || (last && now - last.at < UNPUBLISHED_AFTER_MS)) continue;
        user.hasVideo = false;
        if (user.videoTrack) user.videoTrack._close();
        user.videoTrack = undefined;
        this.emit("user-unpublished", user, "video");
      }
    }

    _quality(session) {
      if (this.connectionState !== "CONNECTED" || !session.link) return;
      const quality = session.link.queued > 65536 ? 3 : 1;
      this.emit("network-quality", { uplinkNetworkQuality: quality, downlinkNetworkQuality: quality });
    }

    _sendVideo(session) {
      const track = this.localTracks.find((t) => t.trackMediaType === "video");
      if (!track || !session.sampler || !session.link || this.connectionState !== "CONNECTED" || this._role !== "host"
          || !track._sending) return;
      if (session.sampler.source !== track._track) {
        session.sampler.stop();
        session.sampler = new FrameSampler(track);
      }
      const frame = session.sampler.sample();
      if (frame && session.link.sendFrame(frame)) {
        session.sent += frame.length;
        session.framesSent += 1;
      }
    }

    async leave() {
      const session = this._session;
      if (!session) return;
      if (this.connectionState === "CONNECTED" && session.link) {
        this._setState("DISCONNECTING");
        await new Promise((resolve) => {
          session.leaving = resolve;
          setTimeout(resolve, 2000);
          session.link.send({ type: "leave" });
        });
      }
      this._end(session, "LEAVE");
    }

    async renewToken(token) {
      if (typeof token !== "string" || token === "") {
        throw fail("INVALID_PARAMS", "Invalid token: " + (typeof token === "string" ? token : typeof token));
      }
      const session = this._session;
      if (!session || this.connectionState === "DISCONNECTING") {
        throw fail("INVALID_OPERATION", "renewToken should not be called before user join");
      }
      if (this.connectionState !== "CONNECTED" || !session.link) {
        session.token = token;  // the join under way, or the next after a reconnect, presents it
        return;
      }
      await new Promise((resolve, reject) => {
        session.renewals.push({ token, resolve, reject });
        session.link.send({ type: "renew", token });
      });
    }

    async setClientRole(role, options) {
      if (this.mode !== "live") throw fail("INVALID_OPERATION", 'setClientRole is for mode "live"; this client is "rtc"');
      if (role !== "host" && role !== "audience") throw fail("INVALID_PARAMS", `role must be "host" or "audience", not ${role}`);
      if (options !== undefined) checkRoleOptions(options);
      const session = this._session;
      if (!session || this.connectionState !== "CONNECTED" || !session.link || role === this._role) {
        this._role = role;
        return;
      }
      await new Promise((resolve, reject) => {
        session.roleChange = { resolve, reject };
        session.link.send({ type: "setRole", role: role === "host" ? "broadcaster" : "audience" });
      });
      this._role = role;
    }

    async publish(tracks) {
      const list = Array.isArray(tracks) ? tracks : [tracks];
      if (!list.length || list.some((track) => !(track instanceof LocalTrack))) {
        throw fail("INVALID_PARAMS", "publish takes the tracks AgoraRTC.createCameraVideoTrack and createMicrophoneAudioTrack make");
      }
      const session = this._session;
      if (!session || this.connectionState !== "CONNECTED") throw fail("INVALID_OPERATION", "Can't publish stream, haven't joined yet!");
      if (this._role !== "host") throw fail("INVALID_OPERATION", "audience can not publish stream; setClientRole(\"host\") first");
      const videos = list.filter((track) => track.trackMediaType === "video");
      const published = this.localTracks.find((track) => track.trackMediaType === "video");
      if (videos.length > 1 || (videos.length && published && published !== videos[0])) {
        throw fail("CAN_NOT_PUBLISH_MULTIPLE_VIDEO_TRACKS", "a client publishes one video track; unpublish the other first");
      }
      const audios = list.filter((track) => track.trackMediaType === "audio");
      const publishedAudio = this.localTracks.find((track) => track.trackMediaType === "audio");
      if (audios.length > 1 || (audios.length && publishedAudio && publishedAudio !== audios[0])) {
        throw fail("INVALID_OPERATION", "this client publishes one audio track; unpublish the other first");
      }
      for (const track of list) {
        if (!this.localTracks.includes(track)) this.localTracks.push(track);
        track._publisher = this;
      }
      if (videos.length && !published) session.sampler = new FrameSampler(videos[0]);
      // Resolved by the hub's answer, as the SDK's publish waits for its server: an app that registers
      // user-published after publish() resolves has missed nothing the others could have sent it meanwhile.
      await this._tellMedia();
    }

    async unpublish(tracks) {
      const session = this._session;
      const list = tracks === undefined ? this.localTracks.slice() : Array.isArray(tracks) ? tracks : [tracks];
      this.localTracks = this.localTracks.filter((track) => !list.includes(track));
      for (const track of list) if (track instanceof LocalTrack) track._publisher = null;
      if (session && session.sampler && !this.localTracks.some((track) => track.trackMediaType === "video")) {
        session.sampler.stop();
        session.sampler = null;
      }
      await this._tellMedia();
    }

    async subscribe(user, mediaType) {
      const session = this._session;
      if (!session || this.connectionState !== "CONNECTED") throw fail("INVALID_OPERATION", "Can't subscribe stream, haven't joined yet!");
      const uid = user !== null && typeof user === "object" ? user.uid : user;
      const remote = this.remoteUsers.find((candidate) => candidate.uid === uid);
      if (!remote) throw fail("INVALID_REMOTE_USER", `user ${uid} is not in the channel`);
      if (mediaType !== "video" && mediaType !== "audio") throw fail("INVALID_PARAMS", 'mediaType must be "video" or "audio"');
      if (mediaType === "audio") {
        if (!remote.hasAudio) throw fail("REMOTE_USER_IS_NOT_PUBLISHED", `user ${uid} has not published audio`);
        if (!remote.audioTrack) {
          const hubUid = [...session.remote].find(([, candidate]) => candidate === remote)[0];
          remote.audioTrack = new RemoteAudioTrack(remote, hubUid);
          remote.audioTrack._setSending((session.media.get(hubUid) || {}).audio === "on");
        }
        return remote.audioTrack;
      }
      if (!remote.hasVideo) throw fail("REMOTE_USER_IS_NOT_PUBLISHED", `user ${uid} has not published video`);
      if (!remote.videoTrack) {
        remote.videoTrack = new RemoteVideoTrack(remote);
        for (const [hubUid, candidate] of session.remote) {
          const last = session.lastFrame.get(hubUid);
          if (candidate === remote && last) remote.videoTrack._draw(last.frame);
        }
      }
      return remote.videoTrack;
    }

    async unsubscribe(user, mediaType) {
      const uid = user !== null && typeof user === "object" ? user.uid : user;
      const remote = this.remoteUsers.find((candidate) => candidate.uid === uid);
      if (mediaType !== undefined && mediaType !== "audio" && mediaType !== "video") throw fail("INVALID_PARAMS", 'mediaType must be "video", "audio" or none');
      if (remote && remote.audioTrack && mediaType !== "video") {
        remote.audioTrack._close();
        remote.audioTrack = undefined;
      }
      if (remote && remote.videoTrack && mediaType !== "audio") {
        remote.videoTrack._close();
        remote.videoTrack = undefined;
      }
    }

    async massSubscribe(list) {
      if (!Array.isArray(list)) throw fail("INVALID_PARAMS", "massSubscribe takes [{ user, mediaType }]");
      return Promise.all(list.map(({ user, mediaType }) => this.subscribe(user, mediaType).then(
        (track) => ({ user, mediaType, track }), (error) => ({ user, mediaType, error }))));
    }

    async massUnsubscribe(list) {
      if (!Array.isArray(list)) throw fail("INVALID_PARAMS", "massUnsubscribe takes [{ user, mediaType? }]");
      for (const { user, mediaType } of list) await this.unsubscribe(user, mediaType);
    }

    // MARK: what a real network would do: checked as the SDK checks it, then accepted and said (Docs/web.md)

    /// Cloud proxy: mode 3 (UDP) or 5 (TCP/TLS 443), before joining. The hub is reached directly.
    startProxyServer(mode = 3) {
      if (mode !== 3 && mode !== 5) throw fail("INVALID_PARAMS", "startProxyServer's mode is 3 (UDP) or 5 (TCP/TLS 443)");
      this._beforeJoin("startProxyServer");
      this._proxyMode = mode;
      report("startProxyServer", "no cloud proxy: the hub is reached directly");
    }
    stopProxyServer() {
      this._beforeJoin("stopProxyServer");
      this._proxyMode = null;
    }
    setProxyServer(proxyServer) {
      if (typeof proxyServer !== "string" || !/^[\x21-\x7e]+$/.test(proxyServer)) throw fail("INVALID_PARAMS", "setProxyServer takes a domain name, ASCII characters");
      this._beforeJoin("setProxyServer");
      report("setProxyServer", "no proxy: the hub is reached directly");
    }
    setTurnServer(turnServer) {
      const servers = Array.isArray(turnServer) ? turnServer : [turnServer];
      if (!servers.length || servers.some((server) => server === null || typeof server !== "object")) throw fail("INVALID_PARAMS", "setTurnServer takes a TURN server's settings");
      this._beforeJoin("setTurnServer");
      report("setTurnServer", "no TURN server: the hub is reached directly");
    }
    _beforeJoin(call) {
      if (this.connectionState !== "DISCONNECTED") throw fail("INVALID_OPERATION", `${call} is called before join or after leave`);
    }

    /// Dual streams: one small stream is all the hub carries, so the low stream is the same one.
    async enableDualStream() {
      if (this._dualStream) throw fail("INVALID_OPERATION", "dual stream is already enabled");
      this._dualStream = true;
      report("enableDualStream", "accepted: the hub carries one 32×18 stream, which is the low stream too");
    }
    async disableDualStream() { this._dualStream = false; }
    setLowStreamParameter(parameter) {
      if (parameter === null || typeof parameter !== "object") throw fail("INVALID_PARAMS", "setLowStreamParameter takes { width, height, framerate, bitrate }");
      for (const name of ["width", "height", "framerate", "bitrate"]) {
        const value = parameter[name];
        if (value !== undefined && typeof value !== "number" && (value === null || typeof value !== "object")) {
          throw fail("INVALID_PARAMS", `the low stream's ${name} must be a number or { min, max, ideal, exact }`);
        }
      }
    }
    async setRemoteVideoStreamType(uid, streamType) {
      this._remoteUser(uid, "setRemoteVideoStreamType");
      if (streamType !== 0 && streamType !== 1) throw fail("INVALID_PARAMS", "streamType is RemoteStreamType.HIGH_STREAM (0) or LOW_STREAM (1)");
    }
    async setRemoteDefaultVideoStreamType(streamType) {
      if (streamType !== 0 && streamType !== 1) throw fail("INVALID_PARAMS", "streamType is RemoteStreamType.HIGH_STREAM (0) or LOW_STREAM (1)");
    }
    async setStreamFallbackOption(uid, fallbackType) {
      this._remoteUser(uid, "setStreamFallbackOption");
      if (![0, 1, 2].includes(fallbackType)) throw fail("INVALID_PARAMS", "fallbackType is RemoteStreamFallbackType's DISABLE (0), LOW_STREAM (1) or AUDIO_ONLY (2)");
    }
    setEncryptionConfig(mode, secret) {
      const modes = ["aes-128-xts", "aes-256-xts", "aes-128-ecb", "sm4-128-ecb", "aes-128-gcm", "aes-256-gcm", "aes-128-gcm2", "aes-256-gcm2", "none"];
      if (!modes.includes(mode)) throw fail("INVALID_PARAMS", `encryptionMode is one of ${modes.join(", ")}`);
      if (typeof secret !== "string" || secret.length > 62) throw fail("INVALID_PARAMS", "the secret is a string of at most 62 characters");
      report("setEncryptionConfig", "accepted: the hub's frames are not encrypted end to end (use wss:// for the link)");
    }
    _remoteUser(uid, call) {
      if (!this.remoteUsers.some((user) => user.uid === uid)) throw fail("INVALID_REMOTE_USER", `${call}: user ${uid} is not in the channel`);
    }

    // MARK: statistics and volumes, from what crosses the hub link

    /// "volume-indicator" every 2 s from now until leave: the local microphone's level (0-100) when published, and
    /// each remote user's tone (0 unless subscribed, played and not muted: the hub carries no audio).
    enableAudioVolumeIndicator() { this._volumeIndicator = true; }

    _volumes(session) {
      if (!this._volumeIndicator || this.connectionState !== "CONNECTED") return;
      const microphone = this.localTracks.find((track) => track.trackMediaType === "audio" && typeof track.getVolumeLevel === "function");
      const volumes = [{ uid: this.uid, level: microphone ? Math.round(microphone.getVolumeLevel() * 100) : 0 }];
      for (const user of this.remoteUsers) {
        volumes.push({ uid: user.uid, level: user.audioTrack ? Math.round(user.audioTrack.getVolumeLevel() * 100) : 0 });
      }
      this.emit("volume-indicator", volumes);
    }

    getRTCStats() {
      const session = this._session;
      if (!session || !session.joinedAt) {
        return { Duration: 0, RecvBitrate: 0, RecvBytes: 0, SendBitrate: 0, SendBytes: 0, UserCount: 0, RTT: 0, OutgoingAvailableBandwidth: 0 };
      }
      const seconds = Math.max(1, (Date.now() - session.joinedAt) / 1000);
      return { Duration: Math.round(seconds), RecvBitrate: Math.round(session.received * 8 / seconds), RecvBytes: session.received,
               SendBitrate: Math.round(session.sent * 8 / seconds), SendBytes: session.sent, UserCount: this.remoteUsers.length + 1,
               RTT: session.rtt, OutgoingAvailableBandwidth: 0 };
    }
    getLocalVideoStats() {
      const session = this._session, track = this.localTracks.find((candidate) => candidate.trackMediaType === "video");
      const settings = track ? track._track.getSettings() : {};
      const seconds = session && session.joinedAt ? Math.max(1, (Date.now() - session.joinedAt) / 1000) : 1;
      const sending = !!(track && session && session.framesSent);
      return { codecType: this.codec.toUpperCase(), captureResolutionWidth: settings.width || 0, captureResolutionHeight: settings.height || 0,
               captureFrameRate: settings.frameRate || 0, sendResolutionWidth: sending ? HUB.columns : 0, sendResolutionHeight: sending ? HUB.rows : 0,
               sendFrameRate: sending ? HUB.framesPerSecond : 0, sendBytes: session ? session.sent : 0,
               sendBitrate: session ? Math.round(session.sent * 8 / seconds) : 0, sendPackets: session ? session.framesSent : 0,
               sendPacketsLost: 0, currentPacketLossRate: 0, encodeDelay: 0, targetSendBitrate: 0, totalDuration: Math.round(seconds),
               totalFreezeTime: 0 };
    }
    getRemoteVideoStats() {
      const stats = {};
      for (const user of this.remoteUsers) if (user.videoTrack) stats[user.uid] = user.videoTrack.getStats();
      return stats;
    }
    getLocalAudioStats() {
      const track = this.localTracks.find((candidate) => candidate.trackMediaType === "audio");
      return { codecType: "opus", sendVolumeLevel: track && track.getVolumeLevel ? Math.round(track.getVolumeLevel() * 32767) : 0,
               sendBitrate: 0, sendBytes: 0, sendPackets: 0, sendPacketsLost: 0, currentPacketLossRate: 0 };
    }
    getRemoteAudioStats() { return {}; }
    getRemoteNetworkQuality() {
      const quality = {};
      for (const user of this.remoteUsers) quality[user.uid] = { uplinkNetworkQuality: 0, downlinkNetworkQuality: 0 };
      return quality;
    }
  }

  const AgoraRTC = Object.assign(new Emitter(), {
    VERSION,
    AgoraRTCError,
    AREAS, AudienceLatencyLevelType, ChannelMediaRelayError, ChannelMediaRelayEvent, ChannelMediaRelayState,
    ConnectionDisconnectedReason, RemoteStreamFallbackType, RemoteStreamType,
    onCameraChanged: undefined,
    onMicrophoneChanged: undefined,
    onPlaybackDeviceChanged: undefined,
    onAutoplayFailed: undefined,
    onAudioAutoplayFailed: undefined,
    onSecurityPolicyViolation: undefined,
    // A function, not an arrow or a method: Agora's samples write `new AgoraRTC.createClient(...)`.
    createClient: function createClient(config) { return new Client(config); },
    async createCameraVideoTrack(config) {
      const constraints = videoConstraints(options(config, "createCameraVideoTrack"));
      const stream = await userMedia({ video: constraints });
      return new LocalVideoTrack(stream.getVideoTracks()[0], "cam", constraints);
    },
    async createMicrophoneAudioTrack(config) {
      const stream = await userMedia({ audio: audioConstraints(options(config, "createMicrophoneAudioTrack")) });
      return new MicrophoneAudioTrack(stream.getAudioTracks()[0]);
    },
    async createMicrophoneAndCameraTracks(audioConfig, videoConfig) {
      const video = videoConstraints(options(videoConfig, "createMicrophoneAndCameraTracks"));
      const stream = await userMedia({ audio: audioConstraints(options(audioConfig, "createMicrophoneAndCameraTracks")), video });
      return [new MicrophoneAudioTrack(stream.getAudioTracks()[0]), new LocalVideoTrack(stream.getVideoTracks()[0], "cam", video)];
    },
    createScreenVideoTrack: (config, withAudio = "disable") => screenTracks(config, withAudio),
    async getDevices() {
      if (!navigator.mediaDevices) return [];
      try { return await navigator.mediaDevices.enumerateDevices(); } catch (error) { throw fail("ENUMERATE_DEVICES_FAILED", String(error)); }
    },
    async getCameras() { return (await AgoraRTC.getDevices()).filter((device) => device.kind === "videoinput"); },
    async getMicrophones() { return (await AgoraRTC.getDevices()).filter((device) => device.kind === "audioinput"); },
    async getPlaybackDevices() { return (await AgoraRTC.getDevices()).filter((device) => device.kind === "audiooutput"); },
    async getSupportedCodec() { return { video: ["VP8", "H264"], audio: ["OPUS"] }; },
    /// Whether the track's picture changes within timeout ms (false while it is muted).
    async checkVideoTrackIsActive(track, timeout = 5000) {
      if (!track || typeof track._picture !== "function") throw fail("INVALID_PARAMS", "checkVideoTrackIsActive takes a video track");
      const first = track._picture().data;
      for (const started = Date.now(); Date.now() - started < timeout;) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const now = track._picture().data;
        if (now.length !== first.length || now.some((value, index) => value !== first[index])) return !track.muted;
      }
      return false;
    },
    /// Whether the track's level moves within timeout ms (false while it is muted).
    async checkAudioTrackIsActive(track, timeout = 5000) {
      if (!track || typeof track.getVolumeLevel !== "function") throw fail("INVALID_PARAMS", "checkAudioTrackIsActive takes an audio track");
      const first = track.getVolumeLevel();
      for (const started = Date.now(); Date.now() - started < timeout;) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (track.getVolumeLevel() !== first) return true;
      }
      return false;
    },
    checkSystemRequirements: () => typeof WebSocket === "function" && !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia),
    /// The region to connect to: AREAS values, or { areaCode: [...], excludedArea }; there is one hub.
    setArea(area) {
      const list = Array.isArray(area) ? area : area !== null && typeof area === "object" ? area.areaCode : null;
      const valid = (value) => typeof value === "string" && Object.prototype.hasOwnProperty.call(AREAS, value);
      if (!Array.isArray(list) || !list.length || !list.every(valid)
          || (!Array.isArray(area) && area.excludedArea !== undefined && !valid(area.excludedArea))) {
        throw fail("INVALID_PARAMS", "setArea takes AREAS values, or { areaCode: [AREAS values], excludedArea? }");
      }
      report("setArea", "accepted: there is one hub, at the origin this script came from");
    },
    setLogLevel(level) {
      if (![0, 1, 2, 3, 4].includes(level)) throw fail("INVALID_PARAMS", "the log level is 0 (DEBUG) to 4 (NONE)");
    },
    enableLogUpload() {},
    disableLogUpload() {},
  });
  watchDevices();

  return AgoraRTC;
}
