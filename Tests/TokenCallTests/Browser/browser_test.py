#!/usr/bin/python3
"""Drives Debian's Chromium headless (Selenium, Chromium's fake camera) against a running `tokencall serve`.

One window holds, as iframes, every page the Swift test (BrowserTests.swift) asks about at once, so they share the
wait for the tokens' end:
  meet      the server's own page at /, joining channel --meet as uid 7 by its form and Join button
  renewing  guide.html from another origin (--guide-port, allowed by --cors-origin), uid 21, renewing
  expiring  the same page with renewal off, uid 22
  foreign   the same page with a token for another channel, uid 23
  elsewhere guide.html from an origin not allowed (--elsewhere-port), uid 24, with a good token and a bare WebSocket
  module    module.html from the allowed origin, uid 25: the ES module through an import map, and what the SDK refuses
  samples   samples.html from the allowed origin, uid 26 in --tokens: written like video-sdk-samples-js, leaving after 35 s
After --seconds it prints one JSON object of what each page saw, and exits 0; a page that cannot be driven is exit 1.

With --page URL (one or more) it opens each page in turn instead, types each --fill ID=TEXT given after that --page
into the element of that id (emptied first), clicks the element --click names if given, waits
until --done is true (window.done; at most --seconds each), and prints {"pages": [--read's value for each page
(window.events)], "console": [the browser's console lines]}: pages a test serves itself, such as
BrowserHostileHubTests' hostile hub, or this folder's, served at --serve-port meanwhile (BrowserAudioTests).
"""
import argparse
import functools
import http.server
import json
import os
import sys
import threading
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

HERE = os.path.dirname(os.path.abspath(__file__))


class Fill(argparse.Action):
    """--fill ID=TEXT, kept for the --page given last before it."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not namespace.page:
            parser.error("--fill comes after the --page it is for")
        namespace.fills.setdefault(len(namespace.page) - 1, []).append(value)


class Pages(http.server.SimpleHTTPRequestHandler):
    """This folder's files, and at /harness the page of iframes made for this run."""
    harness = b""

    def do_GET(self):
        if self.path != "/harness":
            return super().do_GET()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.harness)))
        self.end_headers()
        self.wfile.write(self.harness)

    def log_message(self, format, *args):
        pass


def serve_directory(port):
    handler = functools.partial(Pages, directory=HERE)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def fetch_token(server, uid, channel):
    body = json.dumps({"uid": uid, "channelName": channel, "role": 1}).encode()
    request = urllib.request.Request(server + "/fetch_rtc_token", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["token"]


def guide(port, **query):
    return f"http://127.0.0.1:{port}/guide.html?" + urllib.parse.urlencode(query)


# Reads the meet page: its event log, the colours the <video class="agora_video_player"> play() made for uid 1 shows
# (one per cell, read at the cell's middle from the picture at its own size), and the colours of its own camera taken
# down to 32x18 the way a person would look at it.
READ_MEET = """
const log = document.getElementById("log").innerText;
const player = document.querySelector('[data-uid="1"] div[id^="agora-video-player-track-video-1-"] > video.agora_video_player');
let remote = [];
if (player && player.videoWidth > 0) {
  const canvas = document.createElement("canvas");
  canvas.width = player.videoWidth; canvas.height = player.videoHeight;
  const context = canvas.getContext("2d");
  context.drawImage(player, 0, 0);
  const cellWidth = canvas.width / 32, cellHeight = canvas.height / 18;
  for (let row = 0; row < 18; row++) for (let column = 0; column < 32; column++) {
    const d = context.getImageData(Math.floor((column + 0.5) * cellWidth), Math.floor((row + 0.5) * cellHeight), 1, 1).data;
    remote.push([d[0], d[1], d[2]]);
  }
}
let camera = [];
const video = document.querySelector("#tile-local video");
if (video && video.videoWidth > 0) {
  const small = document.createElement("canvas");
  small.width = 32; small.height = 18;
  const context = small.getContext("2d");
  context.drawImage(video, 0, 0, 32, 18);
  const d = context.getImageData(0, 0, 32, 18).data;
  for (let i = 0; i < d.length; i += 4) camera.push([d[i], d[i + 1], d[i + 2]]);
}
return {log, remote, camera, state: document.getElementById("state").textContent,
        canvasSize: player ? [player.videoWidth, player.videoHeight] : null};
"""


def chromium():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                 # as if the person had clicked: the fake microphone's tone reaches the pages' AudioContexts
                 "--autoplay-policy=no-user-gesture-required", "--window-size=1400,1100",
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-sync"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def pages(args):
    served = serve_directory(args.serve_port) if args.serve_port else None
    driver = chromium()
    result = {"pages": [], "console": []}
    try:
        for index, url in enumerate(args.page):
            driver.get(url)
            deadline = time.time() + args.seconds
            for fill in args.fills.get(index, []):
                element_id, _, text = fill.partition("=")
                while not driver.find_elements(By.ID, element_id) and time.time() < deadline:
                    time.sleep(0.1)
                driver.find_element(By.ID, element_id).clear()
                driver.find_element(By.ID, element_id).send_keys(text)
            if args.click:
                while not driver.find_elements(By.ID, args.click) and time.time() < deadline:
                    time.sleep(0.1)
                driver.find_element(By.ID, args.click).click()
            while not driver.execute_script("return " + args.done) and time.time() < deadline:
                time.sleep(0.1)
            result["pages"].append(driver.execute_script("return " + args.read))
            result["console"] += [entry["message"] for entry in driver.get_log("browser")]
    finally:
        driver.quit()
        if served:
            served.shutdown()
    print(json.dumps(result))


def main():
    if "--page" in sys.argv:
        parser = argparse.ArgumentParser()
        parser.add_argument("--page", action="append", required=True)
        parser.add_argument("--seconds", type=float, default=10)
        parser.add_argument("--fill", action=Fill, default=None)
        parser.add_argument("--click")
        parser.add_argument("--done", default="window.done === true")
        parser.add_argument("--read", default="window.events || []")
        parser.set_defaults(fills={})
        parser.add_argument("--serve-port", type=int, help="serve this folder's pages on 127.0.0.1 at this port meanwhile")
        return pages(parser.parse_args())
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="the serve's base URL, http://127.0.0.1:PORT")
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--guide-port", type=int, required=True)
    parser.add_argument("--elsewhere-port", type=int, required=True)
    parser.add_argument("--meet", default="meet")
    parser.add_argument("--tokens", default="tokens")
    parser.add_argument("--seconds", type=float, default=48)
    args = parser.parse_args()

    servers = [serve_directory(args.guide_port), serve_directory(args.elsewhere_port)]
    common = {"server": args.server, "appId": args.app_id, "channel": args.tokens}
    frames = {
        "meet": args.server + "/",
        "renewing": guide(args.guide_port, uid=21, **common),
        "expiring": guide(args.guide_port, uid=22, renew=0, **common),
        "foreign": guide(args.guide_port, uid=23, token=fetch_token(args.server, 23, "another-channel"), **common),
        "elsewhere": guide(args.elsewhere_port, uid=24, probe=1, token=fetch_token(args.server, 24, args.tokens), **common),
        "module": guide(args.guide_port, uid=25, token=fetch_token(args.server, 25, args.tokens), **common)
        .replace("/guide.html", "/module.html"),
        "samples": guide(args.guide_port, uid=26, seconds=35, **common).replace("/guide.html", "/samples.html"),
    }
    harness = "<!doctype html><body style='margin:0'>" + "".join(
        f"<iframe name='{name}' src='{url}' allow='camera; microphone' width='640' height='480'></iframe>"
        for name, url in frames.items()) + "</body>"
    Pages.harness = harness.encode()

    driver = chromium()
    result = {}
    try:
        driver.set_script_timeout(10)
        driver.get(f"http://127.0.0.1:{args.guide_port}/harness")
        started = time.time()

        driver.switch_to.frame("meet")
        deadline = time.time() + 10
        while not driver.find_elements(By.ID, "join") and time.time() < deadline:
            time.sleep(0.1)
        driver.find_element(By.ID, "channel").clear()
        driver.find_element(By.ID, "channel").send_keys(args.meet)
        driver.find_element(By.ID, "uid").send_keys("7")
        driver.find_element(By.ID, "join").click()
        driver.switch_to.default_content()

        meet = None
        while time.time() - started < args.seconds:
            time.sleep(1)
            driver.switch_to.frame("meet")
            seen = driver.execute_script(READ_MEET)
            driver.switch_to.default_content()
            # The first reading with the terminal's video drawn and the camera playing is kept.
            if meet is None and len({tuple(c) for c in seen["remote"]}) > 1 and seen["camera"]:
                meet = seen
        driver.switch_to.frame("meet")
        last = driver.execute_script(READ_MEET)
        driver.switch_to.default_content()
        result["meet"] = dict(meet or last, log=last["log"], state=last["state"])
        for name in ["renewing", "expiring", "foreign", "elsewhere", "module", "samples"]:
            driver.switch_to.frame(name)
            result[name] = driver.execute_script(
                "return {events: window.events || [], state: window.client ? window.client.connectionState : null,"
                " remoteUsers: window.client ? window.client.remoteUsers.map((u) => u.uid) : []}")
            driver.switch_to.default_content()
        result["console"] = [entry["message"] for entry in driver.get_log("browser")][-40:]
    finally:
        driver.quit()
        for server in servers:
            server.shutdown()
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
