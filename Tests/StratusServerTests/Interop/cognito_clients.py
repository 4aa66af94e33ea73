"""Drives the local Cognito with clients nobody here wrote: boto3's cognito-idp and
cognito-identity, pycognito's SRP, PyJWT against the JWKS, and gql with the ID token and with
the identity pool's credentials.

Usage: cognito_clients.py ORIGIN DATA_DIR POOL_ID CLIENT_ID SECRET_CLIENT_ID CLIENT_SECRET IDENTITY_POOL_ID
Prints one JSON object: each step's result, or "ExceptionName: message" when it was refused.
"""
import asyncio
import base64
import hashlib
import hmac
import json
import sqlite3
import sys

import boto3
import jwt
from botocore.credentials import Credentials
from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncIAMAuthentication, AppSyncJWTAuthentication
from pycognito.aws_srp import AWSSRP

origin, data_dir, pool_id, client_id, secret_client_id, client_secret, identity_pool_id = sys.argv[1:8]
host = origin.split("://", 1)[1]
issuer = f"{origin}/{pool_id}"
results = {}
# The IAM credentials StratusTesting's LocalBackend configures: the administrator's.
ADMIN_KEY, ADMIN_SECRET, ADMIN_TOKEN = "AKIDSTRATUSTEST", "stratus/test/secret", "stratus-session"


def refusal(error):
    response = getattr(error, "response", None)
    if response is not None:
        return f"{response['Error']['Code']}: {response['Error']['Message']}"
    return f"{type(error).__name__}: {error}"


def step(name, call):
    try:
        results[name] = call()
    except Exception as error:  # the test asserts on the exception name and message
        results[name] = refusal(error)


def client(service, secret=ADMIN_SECRET):
    return boto3.client(
        service, endpoint_url=origin, region_name="us-east-1",
        aws_access_key_id=ADMIN_KEY, aws_secret_access_key=secret, aws_session_token=ADMIN_TOKEN,
    )


idp = client("cognito-idp")
identity = client("cognito-identity")


def code_of(username):
    with sqlite3.connect(f"{data_dir}/cognito.sqlite") as db:
        row = db.execute(
            "SELECT body FROM cognito_records WHERE kind = 'code' AND key = ?", (f"signUp/{username}",)
        ).fetchone()
    return json.loads(row[0])["code"]


def password_sign_in(username, password, client=client_id):
    return idp.initiate_auth(
        ClientId=client, AuthFlow="USER_PASSWORD_AUTH",
        AuthParameters={"USERNAME": username, "PASSWORD": password},
    )["AuthenticationResult"]


step("signUp", lambda: {
    k: v for k, v in idp.sign_up(
        ClientId=client_id, Username="carol", Password="Carol-pass1!",
        UserAttributes=[{"Name": "email", "Value": "carol@example.com"}],
    ).items() if k in ("UserConfirmed", "CodeDeliveryDetails")
})
step("signInUnconfirmed", lambda: password_sign_in("carol", "Carol-pass1!"))
step("wrongCode", lambda: idp.confirm_sign_up(ClientId=client_id, Username="carol", ConfirmationCode="000000x"))
step("confirm", lambda: idp.confirm_sign_up(
    ClientId=client_id, Username="carol", ConfirmationCode=code_of("carol"))["ResponseMetadata"]["HTTPStatusCode"])
step("signUpAgain", lambda: idp.sign_up(ClientId=client_id, Username="carol", Password="Carol-pass1!"))
step("weakPassword", lambda: idp.sign_up(ClientId=client_id, Username="dave", Password="shortpw"))
step("wrongPassword", lambda: password_sign_in("carol", "Not-her-pass1!"))
step("unknownUser", lambda: password_sign_in("nobody", "Carol-pass1!"))
step("missingUsername", lambda: idp.initiate_auth(
    ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH", AuthParameters={"PASSWORD": "x"}))

tokens = password_sign_in("carol", "Carol-pass1!")
results["tokenType"] = tokens["TokenType"]
jwks = jwt.PyJWKClient(f"{issuer}/.well-known/jwks.json")
id_claims = jwt.decode(
    tokens["IdToken"], jwks.get_signing_key_from_jwt(tokens["IdToken"]).key,
    algorithms=["RS256"], audience=client_id, issuer=issuer,
)
access_claims = jwt.decode(
    tokens["AccessToken"], jwks.get_signing_key_from_jwt(tokens["AccessToken"]).key,
    algorithms=["RS256"], issuer=issuer, options={"verify_aud": False},
)
results["idClaims"] = sorted(id_claims)
results["idValues"] = {k: id_claims[k] for k in ("cognito:username", "email", "token_use", "aud")}
results["issuer"] = id_claims["iss"]
results["accessClaims"] = sorted(access_claims)
results["accessValues"] = {k: access_claims[k] for k in ("username", "token_use", "client_id", "scope")}
results["sameOrigin"] = id_claims["origin_jti"] == access_claims["origin_jti"]

header, payload, signature = tokens["IdToken"].split(".")
claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
claims["cognito:username"] = "mallory"
forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
step("tamperedPyJWT", lambda: jwt.decode(
    f"{header}.{forged}.{signature}", jwks.get_signing_key_from_jwt(tokens["IdToken"]).key,
    algorithms=["RS256"], audience=client_id))

step("getUser", lambda: {
    "Username": (user := idp.get_user(AccessToken=tokens["AccessToken"]))["Username"],
    "Names": [a["Name"] for a in user["UserAttributes"]],
})
step("refresh", lambda: sorted(idp.initiate_auth(
    ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
    AuthParameters={"REFRESH_TOKEN": tokens["RefreshToken"]})["AuthenticationResult"]))

# The administrator's calls, signed by botocore.
step("adminCreate", lambda: idp.admin_create_user(
    UserPoolId=pool_id, Username="erin", TemporaryPassword="Temp-pass1!",
    UserAttributes=[{"Name": "email", "Value": "erin@example.com"}])["User"]["UserStatus"])
step("adminSetPassword", lambda: idp.admin_set_user_password(
    UserPoolId=pool_id, Username="erin", Password="Erin-pass1!", Permanent=True)["ResponseMetadata"]["HTTPStatusCode"])
step("adminGroup", lambda: idp.admin_add_user_to_group(
    UserPoolId=pool_id, Username="erin", GroupName="Admins")["ResponseMetadata"]["HTTPStatusCode"])
step("erinGroups", lambda: jwt.decode(
    password_sign_in("erin", "Erin-pass1!")["IdToken"], options={"verify_signature": False})["cognito:groups"])
step("listUsers", lambda: sorted(u["Username"] for u in idp.list_users(UserPoolId=pool_id)["Users"]))
step("adminConfirm", lambda: (
    idp.sign_up(ClientId=client_id, Username="frank", Password="Frank-pass1!"),
    idp.admin_confirm_sign_up(UserPoolId=pool_id, Username="frank"),
    sorted(password_sign_in("frank", "Frank-pass1!")),
)[2])
step("adminDelete", lambda: (
    idp.admin_delete_user(UserPoolId=pool_id, Username="frank"),
    password_sign_in("frank", "Frank-pass1!"),
)[1])
step("wrongAdminSecret", lambda: client("cognito-idp", secret="wrong-secret").list_users(UserPoolId=pool_id))


def secret_hash(username):
    mac = hmac.new(client_secret.encode(), (username + secret_client_id).encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()


step("secretClient", lambda: sorted(idp.initiate_auth(
    ClientId=secret_client_id, AuthFlow="USER_PASSWORD_AUTH",
    AuthParameters={"USERNAME": "carol", "PASSWORD": "Carol-pass1!", "SECRET_HASH": secret_hash("carol")},
)["AuthenticationResult"]))
step("secretClientWithoutHash", lambda: password_sign_in("carol", "Carol-pass1!", client=secret_client_id))


# SRP with pycognito, which proves the password as Cognito's own clients do.
def srp(password):
    return AWSSRP(username="carol", password=password, pool_id=pool_id, client_id=client_id,
                  client=idp).authenticate_user()["AuthenticationResult"]


step("pycognitoSRP", lambda: jwt.decode(
    srp("Carol-pass1!")["IdToken"], jwks.get_signing_key_from_jwt(tokens["IdToken"]).key,
    algorithms=["RS256"], audience=client_id, issuer=issuer)["cognito:username"])
step("pycognitoWrongPassword", lambda: srp("Not-her-pass1!"))

# The identity pool: a signed-in user's and a guest's credentials.
logins = {f"{host}/{pool_id}": tokens["IdToken"]}
user_identity = identity.get_id(IdentityPoolId=identity_pool_id, Logins=logins)["IdentityId"]
user_credentials = identity.get_credentials_for_identity(IdentityId=user_identity, Logins=logins)["Credentials"]
guest_identity = identity.get_id(IdentityPoolId=identity_pool_id)["IdentityId"]
guest_credentials = identity.get_credentials_for_identity(IdentityId=guest_identity)["Credentials"]
results["identity"] = {
    "userKey": user_credentials["AccessKeyId"][:4],
    "guestKey": guest_credentials["AccessKeyId"][:4],
    "sameIdentityAgain": identity.get_id(IdentityPoolId=identity_pool_id, Logins=logins)["IdentityId"] == user_identity,
    "expires": bool(user_credentials["Expiration"]),
}
step("userIdentityWithoutLogins", lambda: identity.get_credentials_for_identity(IdentityId=user_identity))
step("wrongProvider", lambda: identity.get_id(
    IdentityPoolId=identity_pool_id, Logins={"cognito-idp.us-east-1.amazonaws.com/x": tokens["IdToken"]}))


async def graphql(auth, document):
    transport = AIOHTTPTransport(url=f"{origin}/graphql", auth=auth)
    try:
        async with Client(transport=transport, fetch_schema_from_transport=False, execute_timeout=60) as session:
            return await session.execute(gql(document))
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def iam(credentials):
    return AppSyncIAMAuthentication(host=host, region_name="us-east-1", credentials=Credentials(
        credentials["AccessKeyId"], credentials["SecretKey"], credentials["SessionToken"]))


async def graphql_steps():
    jwt_auth = AppSyncJWTAuthentication(host=host, jwt=tokens["IdToken"])
    results["gqlOwnerCreate"] = await graphql(jwt_auth, 'mutation { createNote(input: {id: "n1", text: "mine"}) { id owner } }')
    results["gqlUserIAMPrivate"] = await graphql(iam(user_credentials), '{ listNotes { items { id text } } }')
    results["gqlGuestIAMPrivate"] = await graphql(iam(guest_credentials), '{ listNotes { items { id } } }')
    results["gqlGuestIAMPublic"] = await graphql(iam(guest_credentials), 'mutation { createNotice(input: {id: "p1", text: "hi"}) { id } }')

asyncio.run(graphql_steps())

# Sign-out: the tokens, then the refresh token, are refused.
srp_tokens = srp("Carol-pass1!")
step("revoke", lambda: idp.revoke_token(
    Token=srp_tokens["RefreshToken"], ClientId=client_id)["ResponseMetadata"]["HTTPStatusCode"])
step("refreshRevoked", lambda: idp.initiate_auth(
    ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH", AuthParameters={"REFRESH_TOKEN": srp_tokens["RefreshToken"]}))
step("getUserRevoked", lambda: idp.get_user(AccessToken=srp_tokens["AccessToken"]))
step("globalSignOut", lambda: idp.global_sign_out(AccessToken=tokens["AccessToken"])["ResponseMetadata"]["HTTPStatusCode"])
step("getUserAfterSignOut", lambda: idp.get_user(AccessToken=tokens["AccessToken"]))
step("refreshAfterSignOut", lambda: idp.initiate_auth(
    ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH", AuthParameters={"REFRESH_TOKEN": tokens["RefreshToken"]}))

print(json.dumps(results, sort_keys=True))
