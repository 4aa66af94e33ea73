"""SRP values computed by pycognito's AWSSRP, the reference the Swift client is compared with.

Reads a JSON list of cases on standard input, each with the pool id, username, password, the
client's private value `a` (hex), the server's challenge (SRP_B, SALT, SECRET_BLOCK,
USER_ID_FOR_SRP) and a UTC time; prints, per case, SRP_A, the derived key (hex), the
challenge response pycognito sends (TIMESTAMP, PASSWORD_CLAIM_SIGNATURE, SECRET_HASH) and
pycognito's version. Exits 3 when pycognito is missing.
"""

import datetime
import importlib.metadata
import json
import sys
import types

try:
    import pycognito
    from pycognito import aws_srp
except ImportError:
    print("pycognito is not installed: python3 -m pip install pycognito", file=sys.stderr)
    sys.exit(3)


def run(case):
    moment = datetime.datetime.strptime(case["time"], "%Y-%m-%dT%H:%M:%SZ")

    class FixedClock(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return moment

    aws_srp.datetime = types.SimpleNamespace(datetime=FixedClock)
    srp = aws_srp.AWSSRP(
        username=case["username"],
        password=case["password"],
        pool_id=case["poolId"],
        client_id=case["clientId"],
        client=object(),
        client_secret=case.get("clientSecret"),
    )
    srp.small_a_value = int(case["a"], 16)
    srp.large_a_value = srp.calculate_a()
    challenge = {
        "USERNAME": case["username"],
        "USER_ID_FOR_SRP": case["userIdForSRP"],
        "SALT": case["salt"],
        "SRP_B": case["srpB"],
        "SECRET_BLOCK": case["secretBlock"],
    }
    key = srp.get_password_authentication_key(
        case["userIdForSRP"], case["password"], int(case["srpB"], 16), case["salt"]
    )
    response = srp.process_challenge(challenge, srp.get_auth_params())
    return {
        "srpA": srp.get_auth_params()["SRP_A"],
        "key": bytes(key).hex(),
        "timestamp": response["TIMESTAMP"],
        "signature": response["PASSWORD_CLAIM_SIGNATURE"],
        "secretHash": response.get("SECRET_HASH"),
    }


cases = json.load(sys.stdin)
print(json.dumps({"pycognito": importlib.metadata.version("pycognito"), "vectors": [run(c) for c in cases]}))
