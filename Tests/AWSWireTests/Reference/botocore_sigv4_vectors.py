#!/usr/bin/env python3
"""Signs generated requests with botocore's SigV4Auth and prints them as JSON.

The Swift tests run this script once, sign the same inputs with SigV4Signer and compare
every canonical request, string to sign and header byte for byte.

Usage: botocore_sigv4_vectors.py [COUNT] [SEED]

The output is one JSON object: {"botocore": VERSION, "vectors": [...]}, each vector with
the inputs (method, url, headers as [name, value] pairs, base64 body, credentials, service,
region, epoch seconds) and botocore's results (canonicalRequest, stringToSign, headers
after signing, authorization, and host: the Host value botocore signs when the request has
none). Exits with status 3 and a message on stderr when botocore is not installed.
"""

import base64
import datetime
import json
import random
import sys
from unittest import mock

try:
    import botocore
    import botocore.auth
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest, HTTPHeaders
    from botocore.credentials import Credentials
    from botocore.utils import percent_encode, percent_encode_sequence
except ImportError as error:
    sys.stderr.write(
        f"botocore is not installed ({error}). Install it with: python3 -m pip install botocore\n"
    )
    sys.exit(3)


class RecordingSigV4Auth(SigV4Auth):
    """SigV4Auth that keeps the intermediate steps of the last signature."""

    def canonical_request(self, request):
        self.recorded_canonical_request = super().canonical_request(request)
        return self.recorded_canonical_request

    def string_to_sign(self, request, canonical_request):
        self.recorded_string_to_sign = super().string_to_sign(request, canonical_request)
        return self.recorded_string_to_sign


METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"]
SERVICES = ["appsync", "execute-api"]
REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1", "sa-east-1"]
ORIGINS = [
    "https://abcdefghijklmnopqrstuvwxyz.appsync-api.us-east-1.amazonaws.com",
    "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com",
    "https://API.Example.COM",
    "https://api.example.com:443",
    "https://api.example.com:8443",
    "http://127.0.0.1:20002",
    "http://localhost:80",
    "http://localhost",
    "https://user:password@host.example.com",
    "https://[::1]:9443",
    "http://[2001:db8::7]",
]
DATES = [
    datetime.datetime(2024, 1, 2, 3, 4, 5),
    datetime.datetime(2024, 2, 29, 23, 59, 59),
    datetime.datetime(2000, 1, 1, 0, 0, 0),
    datetime.datetime(1999, 12, 31, 23, 59, 59),
    datetime.datetime(2038, 1, 19, 3, 14, 8),
    datetime.datetime(2015, 8, 30, 12, 36, 0),
]

UNRESERVED = "abcXYZ019-._~"
# Characters a path may carry unencoded (RFC 3986 sub-delims, ':' and '@').
PATH_SAFE_RAW = "!$&'()*+,;=:@"
# Characters that must be percent-encoded on the wire.
NEEDS_ENCODING = " %?#[]\"<>\\^`{|}/"
UNICODE = ["é", "ü", "€", "中文", "日本", "😀", "ß", "\u00a0", "Ω"]

QUERY_KEYS = ["a", "b", "Action", "x-id", "list", "key with space", "ü", "€uro", "a+b", "a=b", "a&b",
              "*", "~tilde", "UPPER", "lower", "0", "中", "", "emoji😀"]
QUERY_VALUES = ["", "1", "value", "two words", "a+b", "x=y", "p&q", "ü", "€", "/path/", "%", "~",
                "!*'()", "😀", "UPPER lower", "0", "a;b,c"]

HEADER_NAMES = ["Content-Type", "content-type", "Accept", "X-Custom", "x-custom", "X-CUSTOM",
                "X-Api-Key", "User-Agent", "Expect", "X-Amzn-Trace-Id", "Connection", "Keep-Alive",
                "TE", "Transfer-Encoding", "X-Amz-User-Agent", "Content-Length", "Cache-Control",
                "If-None-Match", "X-Empty", "Authorization", "X-Amz-Date", "X-Amz-Security-Token"]
HEADER_WORDS = ["application/json", "text/plain;  charset=utf-8", "*/*", "gzip, deflate", "v1",
                "a", "b c", "no-cache", "\"etag\"", "abc=="]
WHITESPACE = [" ", "  ", "\t", " \t ", "\r\n ", "\r\n\t", "\x0b", "\x0c", "\x1c", "\x1f", "\xa0",
              "\u2003", "\u3000"]


def random_segment(rng):
    """One path segment as it appears on the wire, and so in the URL."""
    kind = rng.random()
    if kind < 0.05:
        return "."
    if kind < 0.10:
        return ".."
    if kind < 0.15:
        return ""
    out = []
    for _ in range(rng.randint(1, 6)):
        pick = rng.random()
        if pick < 0.45:
            out.append(rng.choice(UNRESERVED))
        elif pick < 0.65:
            char = rng.choice(PATH_SAFE_RAW)
            # Sub-delims travel raw or encoded; both are valid on the wire.
            out.append(char if rng.random() < 0.7 else percent_encode(char, safe=""))
        elif pick < 0.80:
            out.append(percent_encode(rng.choice(NEEDS_ENCODING), safe=""))
        else:
            encoded = percent_encode(rng.choice(UNICODE), safe="")
            # Lowercase hex digits are valid too, and botocore keeps them as sent.
            out.append(encoded.lower() if rng.random() < 0.2 else encoded)
    return "".join(out)


def random_path(rng):
    if rng.random() < 0.08:
        return ""
    segments = [random_segment(rng) for _ in range(rng.randint(0, 5))]
    path = "/" + "/".join(segments)
    if rng.random() < 0.2:
        path += "/"
    return path


def random_query_pairs(rng):
    pairs = []
    for _ in range(rng.randint(1, 6)):
        key = rng.choice(QUERY_KEYS)
        # Repeated keys with different or equal values.
        if pairs and rng.random() < 0.25:
            key = rng.choice(pairs)[0]
        pairs.append((key, rng.choice(QUERY_VALUES)))
    return pairs


def random_header_value(rng):
    pick = rng.random()
    if pick < 0.08:
        return ""
    if pick < 0.15:
        return rng.choice(WHITESPACE)
    parts = []
    if rng.random() < 0.3:
        parts.append(rng.choice(WHITESPACE))
    for index in range(rng.randint(1, 3)):
        if index:
            parts.append(rng.choice(WHITESPACE))
        parts.append(rng.choice(HEADER_WORDS))
    if rng.random() < 0.3:
        parts.append(rng.choice(WHITESPACE))
    return "".join(parts)


def random_body(rng):
    pick = rng.random()
    if pick < 0.3:
        return b""
    if pick < 0.6:
        return json.dumps({"query": "{ hello }", "n": rng.randint(0, 10**6)}).encode()
    if pick < 0.7:
        return "{\"text\":\"ünïcødé 😀\"}".encode()
    return bytes(rng.randrange(256) for _ in range(rng.randint(1, 300)))


def random_secret(rng):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+"
    return "".join(rng.choice(alphabet) for _ in range(40))


def random_access_key(rng, temporary):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    return ("ASIA" if temporary else "AKIA") + "".join(rng.choice(alphabet) for _ in range(16))


def random_token(rng):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+="
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(16, 400)))


def make_vector(rng):
    method = rng.choice(METHODS)
    url = rng.choice(ORIGINS) + random_path(rng)
    params = None
    pick = rng.random()
    if pick < 0.35:
        pass
    elif pick < 0.45:
        # An empty query: "?" and nothing after it.
        url += "?"
    elif pick < 0.60:
        # Given to botocore as params, which signs them without putting them in the URL.
        params = random_query_pairs(rng)
    else:
        # Placed in the URL the way botocore's serializers do.
        query = percent_encode_sequence(random_query_pairs(rng))
        extra = rng.random()
        if extra < 0.1:
            query += "&flag"
        elif extra < 0.15:
            query += "&&z=1"
        url += "?" + query

    headers = HTTPHeaders()
    for _ in range(rng.randint(0, 6)):
        name = rng.choice(HEADER_NAMES)
        headers[name] = random_header_value(rng)
    if rng.random() < 0.1:
        headers["Host"] = rng.choice(["api.example.com", "Mixed.Case.Host:8080", " padded.host "])
    if rng.random() < 0.05:
        headers["Date"] = "Mon, 01 Jan 2001 00:00:00 GMT"
    if rng.random() < 0.04:
        headers["X-Amz-Content-SHA256"] = rng.choice(["UNSIGNED-PAYLOAD", "0" * 64])

    body = random_body(rng)
    temporary = rng.random() < 0.5
    access_key = random_access_key(rng, temporary)
    secret = random_secret(rng)
    token = random_token(rng) if temporary else None
    service = rng.choice(SERVICES)
    region = rng.choice(REGIONS)
    when = rng.choice(DATES)

    inputs = {
        "method": method,
        "url": url if params is None else url + "?" + percent_encode_sequence(params),
        "headers": [[name, value] for name, value in headers.items()],
        "body": base64.b64encode(body).decode("ascii"),
        "accessKeyId": access_key,
        "secretAccessKey": secret,
        "sessionToken": token,
        "service": service,
        "region": region,
        "epochSeconds": int(when.replace(tzinfo=datetime.timezone.utc).timestamp()),
    }

    request = AWSRequest(method=method, url=url, data=body, headers=headers, params=params)
    signer = RecordingSigV4Auth(Credentials(access_key, secret, token=token), service, region)
    with mock.patch("botocore.auth.get_current_datetime", return_value=when):
        signer.add_auth(request)

    inputs.update({
        "canonicalRequest": signer.recorded_canonical_request,
        "stringToSign": signer.recorded_string_to_sign,
        "signedHeaders": [[name, value] for name, value in request.headers.items()],
        "authorization": request.headers["Authorization"],
        "host": botocore.auth._host_from_url(url),
    })
    return inputs


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20240102
    rng = random.Random(seed)
    vectors = [make_vector(rng) for _ in range(count)]
    json.dump({"botocore": botocore.__version__, "vectors": vectors}, sys.stdout, ensure_ascii=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
