"""Calls the local backend's REST API with requests signed by botocore's SigV4Auth
(service execute-api), a signer nobody here wrote.

Usage: rest_botocore.py BASE_URL ACCESS_KEY SECRET TOKEN
Prints one JSON object: each request's status and body.
"""
import json
import sys
import urllib.error
import urllib.request

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def send(method, url, body, headers):
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return {"status": response.status, "body": response.read().decode()}
    except urllib.error.HTTPError as error:
        return {"status": error.code, "body": error.read().decode()}


def signed(method, url, body, credentials):
    request = AWSRequest(method=method, url=url, data=body, headers={"content-type": "application/json"})
    SigV4Auth(credentials, "execute-api", "us-east-1").add_auth(request)
    return dict(request.headers.items())


def main():
    base, access_key, secret, token = sys.argv[1:5]
    good = Credentials(access_key, secret, token)
    wrong = Credentials(access_key, "not-the-secret", token)
    get_url = base + "/secure/a%20b?q=caf%C3%A9&q=2&empty="
    post_url = base + "/secure"
    body = json.dumps({"name": "signed"}).encode()
    tampered_headers = signed("POST", post_url, body, good)
    results = {
        "get": send("GET", get_url, None, signed("GET", get_url, None, good)),
        "post": send("POST", post_url, body, signed("POST", post_url, body, good)),
        "tampered": send("POST", post_url, json.dumps({"name": "changed"}).encode(), tampered_headers),
        "wrongSecret": send("GET", get_url, None, signed("GET", get_url, None, wrong)),
        "unsigned": send("GET", get_url, None, {}),
    }
    print(json.dumps(results))


if __name__ == "__main__":
    main()
