"""The Python side of the token-server benchmark (Scripts/bench-server.sh).

A token server as one would write it with the standard library and Agora's official Python builder
(PyPI agoraiotools 0.3.4): http.server.ThreadingHTTPServer, a thread per connection, HTTP/1.1 keep-alive,
Nagle's algorithm off. It answers POST /fetch_rtc_token {"uid": N, "channelName": "...", "role": 1|2}
with {"token": "...", "expiresIn": N} like `tokencall serve`, issuing a fresh token per request.

    APP_ID=... APP_CERTIFICATE=... python reference_server.py PORT

It listens on 127.0.0.1 only and logs nothing per request (as `tokencall serve --quiet`). Its listen
backlog is 128 instead of socketserver's 5, so that 50 clients connecting at once are not held up for
a second by SYN retries: a setup artefact, not the cost of serving tokens.
"""

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agoraiotools.RtcTokenBuilder2 import Role_Publisher, Role_Subscriber, RtcTokenBuilder

APP_ID = os.environ["APP_ID"]
APP_CERTIFICATE = os.environ["APP_CERTIFICATE"]
LIFETIME = 3600
ROLES = {1: Role_Publisher, 2: Role_Subscriber, "1": Role_Publisher, "2": Role_Subscriber,
         "publisher": Role_Publisher, "subscriber": Role_Subscriber}
MAX_BODY = 16 * 1024


class BadRequest(Exception):
    pass


def issue(body):
    """The token for one request body, or BadRequest saying what is wrong with it."""
    try:
        request = json.loads(body)
    except ValueError:
        raise BadRequest("the body is not valid JSON")
    if not isinstance(request, dict):
        raise BadRequest("the body is not a JSON object")
    channel = request.get("channelName", request.get("ChannelName"))
    if not isinstance(channel, str):
        raise BadRequest("channelName must be a string")
    uid = request.get("uid")
    if isinstance(uid, str) and uid.isascii() and uid.isdigit():
        uid = int(uid)
    if isinstance(uid, bool) or not isinstance(uid, int) or not 0 <= uid < 2**32:
        raise BadRequest("uid must be an integer from 0 to 4294967295")
    role = request.get("role", 1)
    if isinstance(role, bool) or role not in ROLES:
        raise BadRequest("role must be publisher, subscriber, 1 or 2")
    token = RtcTokenBuilder.build_token_with_uid(APP_ID, APP_CERTIFICATE, channel, uid, ROLES[role], LIFETIME, LIFETIME)
    if not token:
        raise BadRequest("the builder refused the channel name or uid")
    return {"token": token, "expiresIn": LIFETIME}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as wrk and `tokencall serve` use it
    disable_nagle_algorithm = True

    def do_POST(self):
        if self.path.split("?", 1)[0] != "/fetch_rtc_token":
            return self.answer(404, {"error": "no endpoint at %s" % self.path})
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.close_connection = True
            return self.answer(411, {"error": "a POST needs a Content-Length header"})
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            return self.answer(413, {"error": "the body is too large"})
        body = self.rfile.read(length)
        try:
            return self.answer(200, issue(body))
        except BadRequest as error:
            return self.answer(400, {"error": str(error)})

    def answer(self, status, value):
        body = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


class Server(ThreadingHTTPServer):
    request_queue_size = 128
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hangs up mid-request (wrk does at the end of a run) is not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: APP_ID=... APP_CERTIFICATE=... reference_server.py PORT")
    server = Server(("127.0.0.1", int(sys.argv[1])), Handler)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
