"""A token server in another language, for `tokencall test`'s built-ins (Tests/TokenCallTests/PythonTokenServerTests.swift).

Written as an app team would: the standard library's http.server and Agora's official Python builder (PyPI
agoraiotools 0.3.4, in the virtualenv `make deps` makes at .build/bench/venv). It answers as
agora-token-service does: POST /getToken {"tokenType": "rtc", "channel": "...", "role": "publisher"|"subscriber",
"uid": "..."} with {"token": "..."}, a fresh token each time, living TOKEN_LIFETIME seconds (a uid's digits make a
uid token, other text an account token). It listens on 127.0.0.1, on the port the system picks, and prints that port on its first line.

    APP_ID=... APP_CERTIFICATE=... TOKEN_LIFETIME=60 python token_server.py
"""

import json
import os
import signal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agoraiotools.RtcTokenBuilder2 import Role_Publisher, Role_Subscriber, RtcTokenBuilder

APP_ID = os.environ["APP_ID"]
APP_CERTIFICATE = os.environ["APP_CERTIFICATE"]
LIFETIME = int(os.environ.get("TOKEN_LIFETIME", "3600"))
ROLES = {"publisher": Role_Publisher, "subscriber": Role_Subscriber}
MAX_BODY = 16 * 1024


def issue(body):
    """The answer to one request body: (status, JSON value)."""
    try:
        request = json.loads(body)
    except ValueError:
        return 400, {"error": "the body is not valid JSON"}
    if not isinstance(request, dict):
        return 400, {"error": "the body is not a JSON object"}
    channel, uid, role = request.get("channel"), request.get("uid"), request.get("role")
    if request.get("tokenType") != "rtc" or not isinstance(channel, str) or not isinstance(role, str) or role not in ROLES:
        return 400, {"error": "tokenType must be rtc, channel a string, role publisher or subscriber"}
    if not isinstance(uid, str) or not uid:
        return 400, {"error": "uid must be a string: a uid's digits or a user account"}
    if uid.isascii() and uid.isdigit() and int(uid) < 2**32:
        token = RtcTokenBuilder.build_token_with_uid(APP_ID, APP_CERTIFICATE, channel, int(uid), ROLES[role], LIFETIME, LIFETIME)
    else:
        token = RtcTokenBuilder.build_token_with_user_account(APP_ID, APP_CERTIFICATE, channel, uid, ROLES[role],
                                                              LIFETIME, LIFETIME)
    return 200, {"token": token}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        if self.path != "/getToken":
            return self.answer(404, {"error": "no endpoint at %s" % self.path})
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            return self.answer(400, {"error": "a POST needs a Content-Length of at most %d" % MAX_BODY})
        self.answer(*issue(self.rfile.read(length)))

    def answer(self, status, value):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


def main():
    # A parent may pass its blocked signals on (the Swift test runner does): SIGTERM must end the server.
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
