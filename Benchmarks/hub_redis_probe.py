"""The hub with its Redis far away, for `make bench` (Scripts/bench-hub-redis.sh).

  hub_redis_probe.py proxy LISTEN_PORT TARGET_PORT DELAY_MS
      A TCP proxy on 127.0.0.1 that holds every chunk DELAY_MS before passing it on, each way: Redis that far away.
      Prints "ready" once it listens.
  hub_redis_probe.py probe HUB_PORT JOINERS SECONDS
      One member joins the channel "steady"; then JOINERS clients join a new channel each at once, every claim a
      round trip to the far Redis, while the member pings the hub (a WebSocket ping every 20 ms) for SECONDS.
      Prints {"pings", "p50Ms", "p99Ms", "maxMs", "joined", "joiners"} as JSON.

Standard library only. Tokens come from the hub's own server (GET /rtc/...), as a client would fetch them.
"""

import asyncio
import base64
import json
import os
import struct
import sys
import time
import urllib.request


async def proxy(listen_port, target_port, delay):
    async def pipe(reader, writer):
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    break
                await asyncio.sleep(delay)
                writer.write(chunk)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def serve(client_reader, client_writer):
        try:
            redis_reader, redis_writer = await asyncio.open_connection("127.0.0.1", target_port)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(pipe(client_reader, redis_writer), pipe(redis_reader, client_writer))

    server = await asyncio.start_server(serve, "127.0.0.1", listen_port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


class Socket:
    """A WebSocket client over asyncio streams: masked frames out, whole frames in."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET /hub HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"the hub refused the WebSocket: {head[:80]!r}")
        return cls(reader, writer)

    def send(self, opcode, payload):
        mask = os.urandom(4)
        length = len(payload)
        header = bytes([0x80 | opcode])
        if length < 126:
            header += bytes([0x80 | length])
        elif length < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", length)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", length)
        self.writer.write(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    async def frame(self):
        first, second = await self.reader.readexactly(2)
        length = second & 0x7F
        if length == 126:
            (length,) = struct.unpack("!H", await self.reader.readexactly(2))
        elif length == 127:
            (length,) = struct.unpack("!Q", await self.reader.readexactly(8))
        return first & 0x0F, await self.reader.readexactly(length)

    async def notice(self):
        while True:
            opcode, payload = await self.frame()
            if opcode == 1:
                return json.loads(payload)
            if opcode == 8:
                return {"type": "closed", "payload": payload[2:].decode(errors="replace")}


def token(hub_port, channel, uid):
    url = f"http://127.0.0.1:{hub_port}/rtc/{channel}/publisher/uid/{uid}/?expiry=600"
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)["rtcToken"]


def join(channel, uid, rtc_token):
    return json.dumps({"type": "join", "channel": channel, "uid": uid, "token": rtc_token}).encode()


async def probe(hub_port, joiners, seconds):
    member = await Socket.open(hub_port)
    member.send(1, join("steady", 1, token(hub_port, "steady", 1)))
    first = await member.notice()
    if first.get("type") != "joined":
        raise RuntimeError(f"the member was not let in: {first}")
    tokens = [token(hub_port, f"far{index}", 2) for index in range(joiners)]
    sockets = [await Socket.open(hub_port) for _ in range(joiners)]
    for index, socket in enumerate(sockets):
        socket.send(1, join(f"far{index}", 2, tokens[index]))

    async def outcome(socket):
        try:
            return (await asyncio.wait_for(socket.notice(), seconds + 10)).get("type")
        except (asyncio.TimeoutError, asyncio.IncompleteReadError):
            return "no answer"

    outcomes = asyncio.gather(*(outcome(socket) for socket in sockets))
    rounds = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sent = time.monotonic()
        member.send(9, b"far")
        while True:
            opcode, _ = await member.frame()
            if opcode == 10:
                break
        rounds.append(time.monotonic() - sent)
        await asyncio.sleep(0.02)
    joined = sum(1 for kind in await outcomes if kind == "joined")
    rounds.sort()
    millis = lambda value: round(value * 1000, 2)
    print(json.dumps({"pings": len(rounds), "p50Ms": millis(rounds[len(rounds) // 2]),
                      "p99Ms": millis(rounds[(len(rounds) * 99) // 100]), "maxMs": millis(rounds[-1]),
                      "joined": joined, "joiners": joiners}))


def main(arguments):
    if len(arguments) == 4 and arguments[0] == "proxy":
        asyncio.run(proxy(int(arguments[1]), int(arguments[2]), int(arguments[3]) / 1000))
    elif len(arguments) == 4 and arguments[0] == "probe":
        asyncio.run(probe(int(arguments[1]), int(arguments[2]), float(arguments[3])))
    else:
        sys.exit("usage: hub_redis_probe.py proxy LISTEN_PORT TARGET_PORT DELAY_MS | probe HUB_PORT JOINERS SECONDS")


if __name__ == "__main__":
    main(sys.argv[1:])
