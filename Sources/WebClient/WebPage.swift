import AccessToken
import AgoraVocabulary
import TokenClient

/// The page at `/`: a form like Agora's web demo (App ID, channel, user, a token or a token URL) and the token's life
/// as a timeline — fetched, joined, will-expire, renewed, expired, refused — beside the call screen's tiles and event
/// log, written only with the public `AgoraRTC` as a web developer would write theirs (`Docs/web.md`).
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
        <link rel="icon" href="data:,">
        <style>
          body { font: 14px/1.4 system-ui, sans-serif; margin: 0 auto; max-width: 72rem; padding: 1rem; background: #111; color: #ddd; }
          header { display: flex; gap: 1rem; align-items: baseline; }
          h1 { font-size: 1.2rem; margin: 0; }
          #state { font-weight: bold; }
          #state.CONNECTED { color: #5c5; } #state.DISCONNECTED { color: #c55; } #state.CONNECTING, #state.RECONNECTING { color: #cc5; }
          form, nav, #token-life { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin: .75rem 0; }
          input[type=text] { width: 10rem; }
          label.wide input { width: 24rem; }
          .hint { color: #999; font-size: .85rem; max-width: 60rem; }
          #timeline { font: 12px/1.4 ui-monospace, monospace; padding-left: 2rem; }
          #timeline .refused, #timeline .expired { color: #e77; } #timeline .will-expire { color: #cc5; } #timeline .renewed, #timeline .joined { color: #5c5; }
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

    /// TokenClient's rules for a token URL and its answer, and the warning's lead, as the script reads them (`rules`).
    private static var rules: String {
        let names = RequestTemplate.Placeholder.named.map(\.name)
        let versions = [AccessToken2.version, AccessToken006.version]
        return """
            const rules = {
              placeholder: /\\{(\(names.joined(separator: "|")))\\}/g,
              tokenFields: [\(HTTPTokenProvider.tokenFields.map { "\"\($0)\"" }.joined(separator: ", "))],
              expiresField: "\(HTTPTokenProvider.expiresField)",
              tokenAlone: /^\\s*(\(versions.joined(separator: "|")))[\(PastedToken.alphabet.map { $0 == "/" ? "\\/" : String($0) }.joined())]+\\s*$/,
              unixTimeFloor: \(HTTPTokenProvider.unixTimeFloor),
              willExpireLead: \(AgoraTokenTiming.willExpireLeadSeconds),
            };
            """
    }

    private static let body = #"""
        <body>
        <header><h1>tokencall</h1><span id="state" class="DISCONNECTED">DISCONNECTED</span><span id="me"></span></header>
        <form id="form" onsubmit="return false">
          <label>App ID <input type="text" id="appId" autocomplete="off" spellcheck="false"></label>
          <label>Channel <input type="text" id="channel" value="demo"></label>
          <label>User <input type="text" id="uid" placeholder="digits: a uid; else an account; empty: the hub picks"></label>
          <label>Token <input type="text" id="token" autocomplete="off" spellcheck="false" placeholder="empty: fetch one from the token URL"></label>
          <label class="wide">Token URL <input type="text" id="tokenUrl" spellcheck="false"></label>
          <label>Role <select id="role"><option value="host">host</option><option value="audience">audience</option></select></label>
          <label><input type="checkbox" id="autoRenew" checked> renew on the warning</label>
          <label><input type="checkbox" id="camera" checked> camera</label>
        </form>
        <p class="hint">The token URL is asked as Agora's guide asks: <code>POST {"uid","channelName","role"}</code>, answered
        <code>{"token","expiresIn"}</code>. A URL with <code>{channel}</code>, <code>{uid}</code>, <code>{account}</code>,
        <code>{user}</code>, <code>{userType}</code>, <code>{role}</code> or <code>{roleName}</code> in it is a <code>GET</code>
        with those filled in, answered with <code>token</code> or <code>rtcToken</code> in JSON, or the token alone. A server on
        another origin must allow this page's origin (CORS).</p>
        <nav>
          <button id="join">Join</button> <button id="leave">Leave</button> <button id="renew">Renew</button>
          <button id="expire">Expire</button> <button id="switchRole">Switch role</button>
        </nav>
        <section id="token-life"><span id="countdown">no token</span><progress id="lifetime" max="1" value="0"></progress></section>
        <h2>The token's life</h2>
        <ol id="timeline"></ol>
        <section id="tiles"></section>
        <h2>Events</h2>
        <ol id="log" reversed></ol>
        <script>
        "use strict";
        \#(rules)
        const $ = (id) => document.getElementById(id);
        $("appId").value = document.querySelector('meta[name="tokencall-app-id"]').content;
        $("tokenUrl").value = `${location.origin}/fetch_rtc_token`;
        const client = AgoraRTC.createClient({ mode: "live", codec: "vp8", role: "host" });
        let camera = null;
        let token = null;  // { expiresAt (ms since 1970, or null when the server did not say), lifetime (s, or null) }

        const clock = (ms) => new Date(ms).toLocaleTimeString(undefined, { hour12: false }) + "." + String(Math.floor(ms) % 1000).padStart(3, "0");

        function log(text) {
          const item = document.createElement("li");
          item.textContent = `${new Date().toLocaleTimeString()}  ${text}`;
          $("log").prepend(item);
          while ($("log").children.length > 300) $("log").lastChild.remove();
        }
        const describe = (user) => `uid ${user.uid}`;

        // One line of the token's life: fetched (or pasted), joined, will-expire, renewed, expired, refused; oldest first.
        function mark(kind, text) {
          const item = document.createElement("li");
          item.dataset.kind = kind;
          item.className = kind;
          const time = document.createElement("time");
          time.textContent = clock(Date.now());
          item.append(time, ` ${kind}: ${text}`);
          $("timeline").append(item);
          while ($("timeline").children.length > 200) $("timeline").firstChild.remove();
        }

        // The User field: digits are a uid, anything else a user account, empty one the hub picks (the SDK checks each).
        function userField() {
          const text = $("uid").value.trim();
          if (text === "") return null;
          return /^[0-9]+$/.test(text) ? Number(text) : text;
        }

        // A value escaped for anywhere in a URL; dots too, so that a channel ".." stays one path segment.
        const escaped = (value) => encodeURIComponent(String(value)).replace(/\./g, "%2E");

        // The request for a token for this user and channel, as the Token URL field says.
        function tokenRequest(user, channel, publisher, lifetime) {
          const template = $("tokenUrl").value.trim();
          if (lifetime) return { url: new URL(`/rtc/${escaped(channel)}/${publisher ? "publisher" : "subscriber"}/${typeof user === "string" ? "userAccount" : "uid"}/${escaped(user ?? 0)}/?expiry=${lifetime}`, location.href) };
          const values = { channel, uid: user ?? 0, account: user, user: user ?? 0, userType: typeof user === "string" ? "userAccount" : "uid",
                           role: publisher ? 1 : 2, roleName: publisher ? "publisher" : "subscriber", expire: lifetime };
          let filled = false, problem = null;
          const text = template.replace(rules.placeholder, (_, name) => {
            filled = true;
            if (values[name] === undefined) problem = `the token URL sends {${name}}, which this page does not ask for: leave it out, and your server decides`;
            if (name === "uid" && typeof user === "string") problem = "the token URL sends {uid}, but the User is an account: use {account} or {user}";
            if (name === "account" && typeof user !== "string") problem = "the token URL sends {account}, but the User is a uid (or empty): use {uid} or {user}";
            return escaped(values[name]);
          });
          if (problem) throw new Error(problem);
          let url;
          try { url = new URL(text, location.href); } catch (error) { throw new Error("the token URL is not a URL: write one such as https://example.com/fetch_rtc_token"); }
          if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`the token URL must be http: or https:, not ${url.protocol}`);
          if (filled) return { url };
          if (typeof user === "string") throw new Error("Agora's guide's POST carries an integer uid only: for an account, give a token URL with {account} or {user} in it, such as /rtc/{channel}/publisher/userAccount/{account}/");
          return { url, init: { method: "POST", headers: { "Content-Type": "application/json" },
                                body: JSON.stringify({ uid: user ?? 0, channelName: channel, role: publisher ? 1 : 2 }) } };
        }

        // Where a token came from, for the timeline: the origin and path only (no query, no user name or password).
        const where = (url) => `${url.origin}${url.pathname}`;

        // What a token server's answer says, in at most 200 characters: a JSON answer's "error" or "message", a web page
        // named as one (never its markup), else the start of the body, as tokencall join tells a refusal.
        function words(body) {
          let json = null;
          try { json = JSON.parse(body); } catch (error) {}
          const said = json && typeof json === "object" ? (typeof json.error === "string" ? json.error : typeof json.message === "string" ? json.message : null) : null;
          if (said !== null) return said.slice(0, 200);
          if (/^\s*</.test(body)) return "it is HTML, not JSON; is the URL the token endpoint?";
          return body.slice(0, 200);
        }

        // A token from the Token URL (or, with a lifetime, from this server's GET /rtc/… ?expiry=): its value and when it ends.
        async function fetchToken(user, channel, lifetime) {
          const publisher = $("role").value === "host";
          const { url, init } = tokenRequest(user, channel, publisher, lifetime);
          let answer, body;
          try {
            answer = await fetch(url, init);
            body = await answer.text();
          } catch (error) {
            if (url.origin !== location.origin) {
              throw new Error(`the browser would not let this page read the answer from ${url.origin}: that server is down, or it does not allow this page's origin (CORS). It must answer this page's requests with Access-Control-Allow-Origin: ${location.origin}` +
                              (init ? " and allow the Content-Type header in its preflight (OPTIONS) answer" : "") + "; with tokencall serve, that is --cors-origin " + location.origin);
            }
            throw new Error(`could not reach ${where(url)}: ${error.message}`);
          }
          const excerpt = words(body);
          if (!answer.ok) throw new Error(`${where(url)} answered HTTP ${answer.status}: ${excerpt}`);
          let value = null, expiresIn = null;
          if (rules.tokenAlone.test(body)) {
            value = body.trim();
          } else {
            let json;
            try { json = JSON.parse(body); } catch (error) { throw new Error(`${where(url)} answered neither JSON nor a token alone: ${excerpt}`); }
            if (json === null || typeof json !== "object") throw new Error(`${where(url)} answered JSON that is not an object: ${excerpt}`);
            const field = rules.tokenFields.find((name) => typeof json[name] === "string");
            if (field === undefined) throw new Error(`${where(url)} answered JSON with no ${rules.tokenFields.map((name) => `"${name}"`).join(" or ")} string: ${excerpt}`);
            value = json[field];
            expiresIn = lifetime || json[rules.expiresField];
          }
          // A lifetime in seconds, or from rules.unixTimeFloor on a unix time, as tokencall join reads it.
          const expiresAt = Number.isSafeInteger(expiresIn) && expiresIn > 0
            ? (expiresIn >= rules.unixTimeFloor ? expiresIn * 1000 : Date.now() + expiresIn * 1000) : null;
          return { value, expiresAt, lifetime: expiresAt === null ? null : Math.round((expiresAt - Date.now()) / 1000), from: where(url) };
        }

        const ends = (fresh) => fresh.expiresAt === null ? `the server did not say when it ends (the warning will come ${rules.willExpireLead} s before)`
                                                         : `${fresh.lifetime} s, ends at ${clock(fresh.expiresAt)}`;

        // The token to use: the Token field's, or one fetched from the Token URL.
        async function nextToken(user, channel) {
          const pasted = $("token").value.trim();
          if (pasted !== "") {
            mark("pasted", `the Token field's token; when it ends is in the token itself (the warning will come ${rules.willExpireLead} s before)`);
            return { value: pasted, expiresAt: null, lifetime: null };
          }
          const fresh = await fetchToken(user, channel);
          mark("fetched", `from ${fresh.from}: ${ends(fresh)}`);
          return fresh;
        }

        // Each remote user's tile by uid (a number, or the account it joined with) in a Map, and yours apart (#tile-local):
        // no uid or account the hub names can pick another's tile, or yours.
        const remoteTiles = new Map();
        function tile(label) {
          const div = document.createElement("div");
          div.className = "tile";
          const video = document.createElement("div"), caption = document.createElement("div");
          video.className = "video";
          caption.className = "label";
          caption.textContent = label;
          div.append(video, caption);
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
          let stage = "token";
          try {
            const channel = $("channel").value, user = userField();
            await client.setClientRole($("role").value);
            const fresh = await nextToken(user, channel);
            stage = "join";
            const joined = await client.join($("appId").value.trim(), channel, fresh.value, user);
            token = fresh;
            $("me").textContent = `${channel} as uid ${joined}`;
            mark("joined", `${channel} as uid ${joined}`);
            log(`joined ${channel} as uid ${joined}`);
            stage = "camera";
            await publishCamera();
          } catch (error) {
            if (stage !== "camera") mark("refused", stage === "token" ? `no token: ${error.message}` : `the join: ${error}`);
            log(`join failed: ${error}`);
          }
        }

        async function renew(lifetime) {
          try {
            const fromField = !lifetime && $("token").value.trim() !== "";
            const fresh = fromField ? { value: $("token").value.trim(), expiresAt: null, lifetime: null }
                                    : await fetchToken(client.uid, client.channelName, lifetime);
            await client.renewToken(fresh.value);
            token = fresh;
            mark("renewed", fromField ? "with the Token field's token" : `from ${fresh.from}: ${ends(fresh)}`);
            log(lifetime ? `renewed with a ${lifetime} s token: it ends now` : "renewed");
          } catch (error) {
            mark("refused", `the renewal: ${error}`);
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
          const when = token && token.expiresAt !== null
            ? `T−${((token.expiresAt - Date.now()) / 1000).toFixed(1)} s, the token ends at ${clock(token.expiresAt)}`
            : `the token ends ${rules.willExpireLead} s from now by the warning (the server did not say when), at ${clock(Date.now() + rules.willExpireLead * 1000)}`;
          if (token && token.expiresAt === null) token.expiresAt = Date.now() + rules.willExpireLead * 1000;
          const renewing = $("autoRenew").checked ? ($("token").value.trim() === "" ? "renewing" : "paste a fresh token and press Renew")
                                                  : "renewal is off";
          mark("will-expire", `${when}; ${renewing}`);
          if ($("autoRenew").checked && $("token").value.trim() === "") renew();
        });
        client.on("token-privilege-did-expire", () => {
          log("token-privilege-did-expire: join again for a fresh token");
          mark("expired", "the hub put this page out of the channel: join again for a fresh token");
        });
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
          if (token.expiresAt === null) {
            $("countdown").textContent = "a token whose end the server did not say";
            $("lifetime").value = 0;
            return;
          }
          const left = Math.max(0, Math.round((token.expiresAt - Date.now()) / 1000));
          $("countdown").textContent = `token ends in ${left} s` + (token.lifetime ? ` (of ${token.lifetime} s)` : "");
          $("lifetime").value = token.lifetime ? left / token.lifetime : 0;
        }, 250);
        </script>
        </body>
        </html>

        """#
}
