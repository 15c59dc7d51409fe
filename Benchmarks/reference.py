"""Times Agora's Python reference (PyPI agoraiotools 0.3.4) on the operations tokencall-bench times.

Prints {"token_build": ns, "token_parse_verify": ns} to stdout: the median ns/op over several rounds.
The package is used as a library only; nothing of it is copied here.
"""

import base64
import hmac
import importlib
import json
import statistics
import sys
import timeit
import zlib

from agoraiotools.Packer import pack_uint32, unpack_string, unpack_uint16, unpack_uint32
from agoraiotools.RtcTokenBuilder2 import Role_Publisher, RtcTokenBuilder

# The package's __init__ rebinds `agoraiotools.AccessToken2` to the class, so fetch the module itself.
AccessToken2 = importlib.import_module("agoraiotools.AccessToken2")

APP_ID = "970CA35de60c44645bbae8a215061b33"
APP_CERTIFICATE = "5CFd2fd1755d40ecb72977518be15d3b"
CHANNEL = "7d72365eb983485397e3e3f9d460bdda"
UID = 2882341273
EXPIRE = 3600
# The token the official builder makes of these fixtures with issue_ts 1111111 and salt 1; tokencall-bench
# checks that our builder makes exactly this string, and both sides parse and verify it.
TOKEN = (
    "007eJxTYMjnbmxykS9sidupOTXsxUHfv5rxrn2CvS5XHv26FNLn8lCBwdLcwNnR2DQl1cwg2cTEzMQ0KSkx1SLRyNDUwMwwydjY/YsAgwAf"
    "AwMjAwgzMrAAMYjPBCaZwSQLmFRgME8xNzI2M01NsrQwNrEwNbY0TzVONU6zTDExM0hKSUnkYjCysDAyNjE0MjcGAIOPJQY="
)

ROUNDS = 15
ROUND_SECONDS = 0.05
VERSION_LENGTH = 3


def token_build():
    """The official builder, as an app server calls it (it reads the clock and draws a salt itself)."""
    return RtcTokenBuilder.build_token_with_uid(APP_ID, APP_CERTIFICATE, CHANNEL, UID, Role_Publisher, EXPIRE, EXPIRE)


def token_parse_verify(token=TOKEN, certificate=APP_CERTIFICATE.encode()):
    """What a verifier built on the package must do: the package has parsing but no signature check."""
    content = zlib.decompress(base64.b64decode(token[VERSION_LENGTH:]))
    signature, signing_info = unpack_string(content)
    # The fields, read as AccessToken.from_string reads them.
    app_id, rest = unpack_string(signing_info)
    issue_ts, rest = unpack_uint32(rest)
    expire, rest = unpack_uint32(rest)
    salt, rest = unpack_uint32(rest)
    service_count, rest = unpack_uint16(rest)
    services = {}
    for _ in range(service_count):
        service_type, rest = unpack_uint16(rest)
        service = AccessToken2.AccessToken.kServices[service_type]()
        rest = service.unpack(rest)
        services[service_type] = service
    # The signature chain AccessToken.build signs with.
    key = hmac.digest(pack_uint32(issue_ts), certificate, "sha256")
    key = hmac.digest(pack_uint32(salt), key, "sha256")
    return hmac.compare_digest(hmac.digest(key, signing_info, "sha256"), signature)


def measure(op):
    """Median ns/op over ROUNDS rounds of as many calls as fill ROUND_SECONDS, after a warm-up."""
    timer = timeit.Timer(op)
    number, _ = timer.autorange()  # warm-up and calibration: calls per >= 0.2 s
    number = max(1, int(number * ROUND_SECONDS / 0.2))
    return statistics.median(t / number * 1e9 for t in timer.repeat(repeat=ROUNDS, number=number))


def main():
    if not token_build().startswith("007"):
        sys.exit("reference.py: the official builder returned no token")
    if not token_parse_verify():
        sys.exit("reference.py: the fixture token did not verify with the reference")
    if token_parse_verify(certificate=b"0" * 32):
        sys.exit("reference.py: the fixture token verified with a wrong certificate")
    figures = {"token_build": measure(token_build), "token_parse_verify": measure(token_parse_verify)}
    print(json.dumps({name: round(ns, 1) for name, ns in figures.items()}))


if __name__ == "__main__":
    main()
