/// The page at `/`: what the terminal's call screen shows, in a browser, written only with the public `AgoraRTC`
/// as a web developer would write theirs — a token from this server's `/fetch_rtc_token`, the tiles, the token's
/// countdown and lifetime bar, the event log, and buttons to join, leave, renew, expire and switch role.
enum WebPage {
    /// The page for a server of this App ID (which is no secret: every Agora page carries it).
    static func html(appID: String) -> String {
        head(appID: appID.filter(\.isHexDigit)) + body
    }

    private static func head(appID: String) -> String {
        #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="tokencall-app-id" content="\#(appID)">
        <title>tokencall</title>
        <style>
          body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; background: #111; color: #ddd; }
          header { display: flex; gap: 1rem; align-items: baseline; }
          h1 { font-size: 1.2rem; margin: 0; }
          #state { font-weight: bold; }
          #state.CONNECTED { color: #5c5; } #state.DISCONNECTED { color: #c55; } #state.CONNECTING, #state.RECONNECTING { color: #cc5; }
          form, nav, #token { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin: .75rem 0; }
          input[type=text] { width: 10rem; }
          button { padding: .3rem .8rem; }
          #lifetime { width: 20rem; }
          #tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: .5rem; }
          .tile { background: #000; border: 1px solid #444; }
          .tile .video { aspect-ratio: 16 / 9; }
          .tile .label { padding: .2rem .4rem; font-size: .85rem; }
          #log { font: 12px/1.4 ui-monospace, monospace; max-height: 16rem; overflow: auto; padding-left: 2rem; }
        </style>
        <script src="/AgoraRTC_N.js"></script>
        </head>

        """#
    }

    private static let body = #"""
        <body>
        <header><h1>tokencall</h1><span id="state" class="DISCONNECTED">DISCONNECTED</span><span id="me"></span></header>
        <form id="form" onsubmit="return false">
          <label>Channel <input type="text" id="channel" value="demo"></label>
          <label>uid <input type="text" id="uid" placeholder="empty: the hub picks"></label>
          <label>Role <select id="role"><option value="host">host</option><option value="audience">audience</option></select></label>
          <label><input type="checkbox" id="autoRenew" checked> renew on the warning</label>
          <label><input type="checkbox" id="camera" checked> camera</label>
        </form>
        <nav>
          <button id="join">Join</button> <button id="leave">Leave</button> <button id="renew">Renew</button>
          <button id="expire">Expire</button> <button id="switchRole">Switch role</button>
        </nav>
        <section id="token"><span id="countdown">no token</span><progress id="lifetime" max="1" value="0"></progress></section>
        <section id="tiles"></section>
        <h2>Events</h2>
        <ol id="log" reversed></ol>
        <script>
        "use strict";
        const appId = document.querySelector('meta[name="tokencall-app-id"]').content;
        const $ = (id) => document.getElementById(id);
        const client = AgoraRTC.createClient({ mode: "live", codec: "vp8", role: "host" });
        let camera = null;
        let token = null;  // { value, lifetime (s), expiresAt (ms) }

        function log(text) {
          const item = document.createElement("li");
          item.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
          $("log").prepend(item);
          while ($("log").children.length > 300) $("log").lastChild.remove();
        }
        const describe = (user) => `uid ${user.uid}`;

        function uidField() {
          const text = $("uid").value.trim();
          if (text === "") return null;
          if (!/^[0-9]+$/.test(text)) throw new Error("this page joins with integer uids (from /fetch_rtc_token); leave it empty for one the hub picks");
          return Number(text);
        }

        // A token from this server: Agora's guide's POST /fetch_rtc_token, or, with a lifetime, GET /rtc/... ?expiry=.
        async function fetchToken(uid, channel, lifetime) {
          const publisher = $("role").value === "host";
          let answer, value, seconds;
          if (lifetime) {
            answer = await fetch(`/rtc/${encodeURIComponent(channel)}/${publisher ? "publisher" : "subscriber"}/uid/${uid || 0}/?expiry=${lifetime}`);
            const json = await answer.json();
            [value, seconds] = [json.rtcToken, lifetime];
            if (!answer.ok) throw new Error(json.error);
          } else {
            answer = await fetch("/fetch_rtc_token", { method: "POST", headers: { "Content-Type": "application/json" },
                                                       body: JSON.stringify({ uid: uid || 0, channelName: channel, role: publisher ? 1 : 2 }) });
            const json = await answer.json();
            if (!answer.ok) throw new Error(json.error);
            [value, seconds] = [json.token, json.expiresIn];
          }
          return { value, lifetime: seconds, expiresAt: Date.now() + seconds * 1000 };
        }

        // Each remote user's tile by uid (a number, or the account it joined with) in a Map, and yours apart (#tile-local):
        // no uid or account the hub names can pick another's tile, or yours.
        const remoteTiles = new Map();
        function tile(label) {
          const div = document.createElement("div");
          div.className = "tile";
          div.innerHTML = '<div class="video"></div><div class="label"></div>';
          div.querySelector(".label").textContent = label;
          return $("tiles").appendChild(div);
        }
        function remoteTile(user) {
          if (!remoteTiles.has(user.uid)) {
            const div = tile(describe(user));
            div.dataset.uid = user.uid;
            remoteTiles.set(user.uid, div);
          }
          return remoteTiles.get(user.uid);
        }
        function removeRemoteTile(user) {
          const div = remoteTiles.get(user.uid);
          if (div) div.remove();
          remoteTiles.delete(user.uid);
        }
        function localTile() {
          const div = $("tile-local") || Object.assign(tile(""), { id: "tile-local" });
          div.querySelector(".label").textContent = `you, uid ${client.uid}`;
          return div;
        }

        async function publishCamera() {
          if ($("role").value !== "host" || !$("camera").checked) return;
          if (!camera) camera = await AgoraRTC.createCameraVideoTrack();
          await client.publish(camera);
          camera.play(localTile().querySelector(".video"));
          log("publishing the camera");
        }

        async function join() {
          try {
            const channel = $("channel").value, uid = uidField();
            await client.setClientRole($("role").value);
            token = await fetchToken(uid, channel);
            const joined = await client.join(appId, channel, token.value, uid);
            $("me").textContent = `${channel} as uid ${joined}`;
            log(`joined ${channel} as uid ${joined}`);
            await publishCamera();
          } catch (error) {
            log(`join failed: ${error}`);
          }
        }

        async function renew(lifetime) {
          try {
            const fresh = await fetchToken(client.uid, client.channelName, lifetime);
            await client.renewToken(fresh.value);
            token = fresh;
            log(lifetime ? `renewed with a ${lifetime} s token: it ends now` : `renewed: ${fresh.lifetime} s`);
          } catch (error) {
            log(`renew failed: ${error}`);
          }
        }

        async function switchRole() {
          const next = client.role === "host" ? "audience" : "host";
          try {
            if (next === "audience" && camera) await client.unpublish(camera);
            if (client.connectionState === "CONNECTED") await client.setClientRole(next);
            $("role").value = next;
            if (next === "audience") { if ($("tile-local")) $("tile-local").remove(); if (camera) camera.stop(); }
            log(`role: ${next}`);
            if (next === "host" && client.connectionState === "CONNECTED") await publishCamera();
          } catch (error) {
            log(`role change failed: ${error}`);
          }
        }

        $("join").onclick = join;
        $("leave").onclick = async () => { await client.leave(); log("left"); };
        $("renew").onclick = () => renew();
        $("expire").onclick = () => renew(1);
        $("switchRole").onclick = switchRole;

        client.on("connection-state-change", (current, previous, reason) => {
          $("state").textContent = current;
          $("state").className = current;
          log(`connection-state-change ${previous} → ${current}${reason ? " " + reason : ""}`);
          if (current === "DISCONNECTED") {
            $("me").textContent = "";
            token = null;
            for (const div of [...$("tiles").children]) div.remove();
            remoteTiles.clear();
          }
        });
        client.on("user-joined", (user) => { remoteTile(user); log(`user-joined ${describe(user)}`); });
        client.on("user-left", (user, reason) => { removeRemoteTile(user); log(`user-left ${describe(user)} ${reason}`); });
        client.on("user-published", async (user, mediaType) => {
          log(`user-published ${describe(user)} ${mediaType}`);
          if (mediaType !== "video") return;
          const track = await client.subscribe(user, mediaType);
          track.play(remoteTile(user).querySelector(".video"));
        });
        client.on("user-unpublished", (user, mediaType) => log(`user-unpublished ${describe(user)} ${mediaType}`));
        client.on("token-privilege-will-expire", () => {
          log("token-privilege-will-expire");
          if ($("autoRenew").checked) renew();
        });
        client.on("token-privilege-did-expire", () => log("token-privilege-did-expire: join again for a fresh token"));
        let quality = "";
        client.on("network-quality", (stats) => {
          const now = `up ${stats.uplinkNetworkQuality}, down ${stats.downlinkNetworkQuality}`;
          if (now !== quality) log(`network-quality ${now}`);
          quality = now;
        });
        client.on("exception", (event) => log(`exception ${event.code} ${event.msg} uid ${event.uid}`));

        setInterval(() => {
          if (!token || client.connectionState !== "CONNECTED") {
            $("countdown").textContent = "no token in use";
            $("lifetime").value = 0;
            return;
          }
          const left = Math.max(0, Math.round((token.expiresAt - Date.now()) / 1000));
          $("countdown").textContent = `token ends in ${left} s (of ${token.lifetime} s)`;
          $("lifetime").value = left / token.lifetime;
        }, 250);
        </script>
        </body>
        </html>

        """#
}
