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

  function player(container) {
    const div = document.createElement("div");
    div.className = "agora_video_player";
    div.style.cssText = "width:100%;height:100%;position:relative;overflow:hidden;background:#000";
    element(container, "play()").appendChild(div);
    return div;
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
      this.video.srcObject = new MediaStream([track.getMediaStreamTrack()]);
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

  class LocalTrack extends Emitter {
    constructor(kind, mediaStreamTrack) {
      super();
      this.trackMediaType = kind;
      this._track = mediaStreamTrack;
      this._id = `track-${kind}-${++tracksMade}`;
      this._enabled = true;
      this._muted = false;
      this._closed = false;
      this._player = null;
      mediaStreamTrack.addEventListener("ended", () => this.emit("track-ended"));
    }
    getTrackId() { return this._id; }
    getMediaStreamTrack() { return this._track; }
    getTrackLabel() { return this._track.label; }
    get enabled() { return this._enabled; }
    get muted() { return this._muted; }
    get isPlaying() { return this._player !== null; }
    get _sending() { return this._enabled && !this._muted && !this._closed; }
    async setEnabled(enabled) { this._enabled = !!enabled; this._track.enabled = this._sending; }
    async setMuted(muted) { this._muted = !!muted; this._track.enabled = this._sending; }
    play() {}
    stop() {
      if (this._player) this._player.remove();
      this._player = null;
    }
    close() {
      this.stop();
      this._closed = true;
      this._track.stop();
    }
  }

  class LocalVideoTrack extends LocalTrack {
    constructor(mediaStreamTrack) { super("video", mediaStreamTrack); }
    /// A <video> of the camera inside the element (an element or its id), mirrored unless config.mirror is false.
    play(target, config = {}) {
      this.stop();
      const div = player(target);
      const video = document.createElement("video");
      video.autoplay = true;
      video.muted = true;
      video.playsInline = true;
      video.style.cssText = "width:100%;height:100%;object-fit:" + (config.fit || "cover")
        + (config.mirror === false ? "" : ";transform:scaleX(-1)");
      video.srcObject = new MediaStream([this._track]);
      div.appendChild(video);
      video.play().catch(() => {});
      this._player = div;
    }
  }

  class MicrophoneAudioTrack extends LocalTrack {
    constructor(mediaStreamTrack) { super("audio", mediaStreamTrack); this._volume = 100; }
    setVolume(volume) { this._volume = volume; }
    getVolumeLevel() { return 0; }
  }

  /// A remote user's video: the hub's frames, drawn scaled up into a canvas inside the element given to play().
  class RemoteVideoTrack extends Emitter {
    constructor(user) {
      super();
      this.trackMediaType = "video";
      this._user = user;
      this._id = `track-remote-video-${++tracksMade}`;
      this._player = null;
      this._frame = null;
      this._cells = document.createElement("canvas");
    }
    getUserId() { return this._user.uid; }
    getTrackId() { return this._id; }
    get isPlaying() { return this._player !== null; }
    play(target, config = {}) {
      this.stop();
      const div = player(target);
      const canvas = document.createElement("canvas");
      canvas.style.cssText = "width:100%;height:100%;display:block;object-fit:" + (config.fit || "contain");
      div.appendChild(canvas);
      this._player = { div, canvas };
      if (this._frame) this._draw(this._frame);
    }
    stop() {
      if (this._player) this._player.div.remove();
      this._player = null;
    }
    _draw(frame) {
      this._frame = frame;
      if (!this._player) return;
      const cells = this._cells, canvas = this._player.canvas;
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
    }
  }

  async function userMedia(constraints) {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      throw fail("NOT_SUPPORTED", "this page cannot use a camera or microphone: serve it over https, or from localhost or 127.0.0.1");
    }
    try {
      return await navigator.mediaDevices.getUserMedia(constraints);
    } catch (error) {
      const name = error && error.name;
      const code = name === "NotAllowedError" ? "PERMISSION_DENIED"
        : name === "NotFoundError" || name === "OverconstrainedError" ? "DEVICE_NOT_FOUND"
        : name === "NotReadableError" ? "NOT_READABLE" : "UNEXPECTED_ERROR";
      throw fail(code, `${name}: ${error && error.message}`);
    }
  }

  function videoConstraints(config) {
    const video = {};
    if (config.cameraId) video.deviceId = { exact: config.cameraId };
    if (config.facingMode) video.facingMode = config.facingMode;
    const encoder = config.encoderConfig;
    if (encoder && typeof encoder === "object") {
      if (encoder.width) video.width = encoder.width;
      if (encoder.height) video.height = encoder.height;
    }
    return Object.keys(video).length ? video : true;
  }

  function audioConstraints(config) {
    return config.microphoneId ? { deviceId: { exact: config.microphoneId } } : true;
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
      if (this.isOpen && !this.closed && this.socket.bufferedAmount === 0) this.socket.send(bytes);
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
      if (!["vp8", "vp9", "h264", "av1"].includes(config.codec)) {
        throw fail("INVALID_PARAMS", 'createClient needs codec "vp8", "vp9", "h264" or "av1"');
      }
      this.mode = config.mode;
      this.codec = config.codec;
      this._role = config.mode === "live" ? (config.role === "host" ? "host" : "audience") : "host";
      this.connectionState = "DISCONNECTED";
      this.uid = undefined;
      this.channelName = undefined;
      this.remoteUsers = [];
      this.localTracks = [];
      this._session = null;
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
        remote: new Map(), lastFrame: new Map(), renewals: [], roleChange: null, leaving: null, abort: null,
        timers: [], sampler: null, saidPastUserLimit: false,
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
                              role: this._role === "host" ? "broadcaster" : "audience" };
            Object.assign(request, session.user.account !== undefined ? session.user : { uid: session.hubUid || session.user.uid });
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
      }
      this._setState("CONNECTED");
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
      if (session.roleChange) session.roleChange.reject(aborted);
      if (session.leaving) session.leaving();
      for (const user of session.remote.values()) if (user.videoTrack) user.videoTrack.stop();
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
      if (user.hasVideo) {
        user.hasVideo = false;
        if (user.videoTrack) user.videoTrack.stop();
        user.videoTrack = undefined;
        this.emit("user-unpublished", user, "video");
      }
      this.emit("user-left", user, reason);
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
      if (user.videoTrack) user.videoTrack._draw(frame);
    }

    _checkVideo(session) {
      const now = Date.now();
      for (const [hubUid, user] of session.remote) {
        const last = session.lastFrame.get(hubUid);
        if (!user.hasVideo || (last && now - last.at < UNPUBLISHED_AFTER_MS)) continue;
        user.hasVideo = false;
        if (user.videoTrack) user.videoTrack.stop();
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
      const frame = session.sampler.sample();
      if (frame) session.link.sendFrame(frame);
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
      for (const track of list) if (!this.localTracks.includes(track)) this.localTracks.push(track);
      if (videos.length && !published) session.sampler = new FrameSampler(videos[0]);
    }

    async unpublish(tracks) {
      const session = this._session;
      const list = tracks === undefined ? this.localTracks.slice() : Array.isArray(tracks) ? tracks : [tracks];
      this.localTracks = this.localTracks.filter((track) => !list.includes(track));
      if (session && session.sampler && !this.localTracks.some((track) => track.trackMediaType === "video")) {
        session.sampler.stop();
        session.sampler = null;
      }
    }

    async subscribe(user, mediaType) {
      const session = this._session;
      if (!session || this.connectionState !== "CONNECTED") throw fail("INVALID_OPERATION", "Can't subscribe stream, haven't joined yet!");
      const uid = user !== null && typeof user === "object" ? user.uid : user;
      const remote = this.remoteUsers.find((candidate) => candidate.uid === uid);
      if (!remote) throw fail("INVALID_REMOTE_USER", `user ${uid} is not in the channel`);
      if (mediaType === "audio") throw fail("REMOTE_USER_IS_NOT_PUBLISHED", `user ${uid} has no audio: the hub carries video only`);
      if (mediaType !== "video") throw fail("INVALID_PARAMS", 'mediaType must be "video" or "audio"');
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
      if (remote && remote.videoTrack && mediaType !== "audio") {
        remote.videoTrack.stop();
        remote.videoTrack = undefined;
      }
    }
  }

  const AgoraRTC = {
    VERSION,
    AgoraRTCError,
    createClient: (config) => new Client(config),
    async createCameraVideoTrack(config = {}) {
      const stream = await userMedia({ video: videoConstraints(config) });
      return new LocalVideoTrack(stream.getVideoTracks()[0]);
    },
    async createMicrophoneAudioTrack(config = {}) {
      const stream = await userMedia({ audio: audioConstraints(config) });
      return new MicrophoneAudioTrack(stream.getAudioTracks()[0]);
    },
    async createMicrophoneAndCameraTracks(audioConfig = {}, videoConfig = {}) {
      const stream = await userMedia({ audio: audioConstraints(audioConfig), video: videoConstraints(videoConfig) });
      return [new MicrophoneAudioTrack(stream.getAudioTracks()[0]), new LocalVideoTrack(stream.getVideoTracks()[0])];
    },
    async getDevices() { return navigator.mediaDevices ? navigator.mediaDevices.enumerateDevices() : []; },
    async getCameras() { return (await AgoraRTC.getDevices()).filter((device) => device.kind === "videoinput"); },
    async getMicrophones() { return (await AgoraRTC.getDevices()).filter((device) => device.kind === "audioinput"); },
    checkSystemRequirements: () => typeof WebSocket === "function" && !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia),
    setLogLevel() {},
    enableLogUpload() {},
    disableLogUpload() {},
  };

  return AgoraRTC;
}
