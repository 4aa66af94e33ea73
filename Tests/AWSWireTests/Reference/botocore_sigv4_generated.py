#!/usr/bin/env python3
"""Signs many generated requests with botocore's SigV4Auth and prints them as JSON.

A wider and larger sample than botocore_sigv4_vectors.py: any method spelling, deep paths
with reserved, encoded and non-ASCII characters, repeated and empty query parameters, up to
twelve headers with non-ASCII names and values and every kind of whitespace, bodies up to
4 KB, any signing time from 1970 to 2099, and more services and regions. The output is kept
small so that the Swift test reads 10,000 requests in a moment: no intermediate steps, only
the inputs, botocore's Authorization and the date header it set. The Authorization's
signature covers the whole canonical request, so equal signatures mean equal bytes.

Usage: botocore_sigv4_generated.py [COUNT] [SEED]

The output is one JSON object: {"botocore": VERSION, "vectors": [...]}, each vector with the
inputs (method, url, headers as [name, value] pairs, base64 body, credentials, service, region,
epoch seconds), "authorization" and "dateHeader" ([name, value]: X-Amz-Date, or Date when the
request has one). Exits with status 3 and a message on stderr when botocore is not installed.
"""

import base64
import datetime
import json
import os
import random
import sys
from unittest import mock

# The generators of the first reference script, imported without leaving bytecode beside it.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import botocore_sigv4_vectors as base  # noqa: E402 (exits with status 3 without botocore)

import botocore  # noqa: E402
from botocore.auth import SigV4Auth  # noqa: E402
from botocore.awsrequest import AWSRequest, HTTPHeaders  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402
from botocore.utils import percent_encode, percent_encode_sequence  # noqa: E402

METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "get", "Post", "PROPFIND", "M-SEARCH"]
SERVICES = ["appsync", "execute-api", "cognito-idp", "lambda", "sts", "es"]
REGIONS = base.REGIONS + ["us-gov-west-1", "cn-north-1", "ap-southeast-3", "me-central-1", "il-central-1"]
ORIGINS = base.ORIGINS + [
    "https://UPPER.CASE.example.com:443",
    "http://example.com:8080",
    "https://x.example.com:1",
    "http://[fe80::1ff:fe23:4567:890a]:65535",
    "https://user@a.example.com:444",
]
# Every character Python's str.split() treats as whitespace, and so botocore when it trims.
WHITESPACE = base.WHITESPACE + ["\x85", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f",
                                "\u205f", "\x1d", "\x1e", "\r", "\n", "\t\t  \t"]
HEADER_NAMES = base.HEADER_NAMES + ["Date", "Host", "X-Amz-Content-SHA256", "x-amz-meta-Ünï", "X-Ünï",
                                    "X-A", "x-a-", "X-A_B", "x-a.b", "X-AB", "Upgrade", "Trailer",
                                    "Proxy-Authorization", "x-amz-target", "Accept-Encoding"]
HEADER_WORDS = base.HEADER_WORDS + ["ünïcødé", "日本語", "😀", "a,b", "  ,  ", "\"quoted  value\"",
                                    "key=value; other=1", "-", "0"]
QUERY_KEYS = base.QUERY_KEYS + ["a-", "a.b", "a_b", "aa", "A", "a~", "%", "&", "=", "/", "x" * 40, "ü ü"]
QUERY_VALUES = base.QUERY_VALUES + ["中文", "=", "==", "&", "%25", "a" * 60, " ", "ü", "+"]


def random_segment(rng):
    pick = rng.random()
    if pick < 0.05:
        return percent_encode("/", safe="")
    if pick < 0.08:
        return "~" + "".join(rng.choice(base.UNRESERVED) for _ in range(rng.randint(10, 40)))
    if pick < 0.10:
        return percent_encode(rng.choice(base.UNICODE) * rng.randint(1, 4), safe="")
    return base.random_segment(rng)


def random_path(rng):
    if rng.random() < 0.05:
        return ""
    segments = [random_segment(rng) for _ in range(rng.randint(0, 8))]
    path = "/" + "/".join(segments)
    if rng.random() < 0.2:
        path += "/"
    if rng.random() < 0.05:
        path += "/"
    return path


def random_query_pairs(rng):
    pairs = []
    for _ in range(rng.randint(1, 10)):
        key = rng.choice(QUERY_KEYS)
        if pairs and rng.random() < 0.3:
            key = rng.choice(pairs)[0]
        value = rng.choice(QUERY_VALUES)
        if pairs and rng.random() < 0.1:
            value = pairs[-1][1]
        pairs.append((key, value))
    return pairs


def random_header_value(rng):
    pick = rng.random()
    if pick < 0.06:
        return ""
    if pick < 0.12:
        return "".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 3)))
    parts = []
    if rng.random() < 0.4:
        parts.append(rng.choice(WHITESPACE))
    for index in range(rng.randint(1, 4)):
        if index:
            parts.append("".join(rng.choice(WHITESPACE) for _ in range(rng.randint(1, 2))))
        parts.append(rng.choice(HEADER_WORDS))
    if rng.random() < 0.4:
        parts.append(rng.choice(WHITESPACE))
    return "".join(parts)


def random_body(rng):
    pick = rng.random()
    if pick < 0.25:
        return b""
    if pick < 0.55:
        return json.dumps({"query": "{ hello }", "variables": {"n": rng.randint(0, 10**9)}}).encode()
    if pick < 0.65:
        return "{\"text\":\"ünïcødé 😀 中文\"}".encode() * rng.randint(1, 20)
    if pick < 0.98:
        return rng.randbytes(rng.randint(1, 300))
    return rng.randbytes(rng.randint(1024, 4096))


def random_access_key(rng, temporary):
    return ("ASIA" if temporary else "AKIA") + base64.b32encode(rng.randbytes(10)).decode("ascii")


def random_secret(rng):
    return base64.b64encode(rng.randbytes(30)).decode("ascii")


def random_token(rng):
    return base64.b64encode(rng.randbytes(rng.randint(12, 90))).decode("ascii")


def random_time(rng):
    if rng.random() < 0.2:
        return rng.choice(base.DATES)
    return datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=rng.randrange(0, 4102444800))


def make_vector(rng, now):
    method = rng.choice(METHODS)
    url = rng.choice(ORIGINS) + random_path(rng)
    params = None
    pick = rng.random()
    if pick < 0.3:
        pass
    elif pick < 0.38:
        url += "?"
    elif pick < 0.5:
        params = random_query_pairs(rng)
    else:
        query = percent_encode_sequence(random_query_pairs(rng))
        extra = rng.random()
        if extra < 0.08:
            query += "&flag"
        elif extra < 0.14:
            query += "&&z=1"
        elif extra < 0.18:
            query += "&"
        elif extra < 0.22:
            query = "&" + query
        elif extra < 0.26:
            query += "&=v"
        url += "?" + query

    headers = HTTPHeaders()
    for _ in range(rng.randint(0, 12)):
        headers[rng.choice(HEADER_NAMES)] = random_header_value(rng)
    if "Host" in headers and rng.random() < 0.5:
        del headers["Host"]
    if "Date" in headers:
        # botocore reads a Date header as a time; give it one it can parse.
        del headers["Date"]
        headers["Date"] = "Mon, 01 Jan 2001 00:00:00 GMT"

    body = random_body(rng)
    temporary = rng.random() < 0.5
    access_key = random_access_key(rng, temporary)
    secret = random_secret(rng)
    token = random_token(rng) if temporary else None
    service = rng.choice(SERVICES)
    region = rng.choice(REGIONS)
    when = random_time(rng)

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
    now[0] = when
    SigV4Auth(Credentials(access_key, secret, token=token), service, region).add_auth(request)
    inputs["authorization"] = request.headers["Authorization"]
    date_name = "Date" if "Date" in request.headers else "X-Amz-Date"
    inputs["dateHeader"] = [date_name, request.headers[date_name]]
    return inputs


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    rng = random.Random(seed)
    now = [None]
    with mock.patch("botocore.auth.get_current_datetime", new=lambda: now[0]):
        vectors = [make_vector(rng, now) for _ in range(count)]
    sys.stdout.write(json.dumps({"botocore": botocore.__version__, "vectors": vectors}, ensure_ascii=True))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
