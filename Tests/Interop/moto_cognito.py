"""A moto Cognito user pool on a free loopback port, for JWT verification tests.

Prints one JSON line: the JWKS URL, the pool's issuer and client, and real tokens issued by
moto (ID and access tokens of a user in the group "Admins", a token of another client of the
same pool, and a token of another pool); for Auth clients, moto's endpoint, an app client
allowing SRP, password and refresh sign-ins, one with a secret, and an identity pool that
allows guests and trusts the pool. Keeps moto running until standard input closes, so
that the server under test can fetch the JWKS document.
"""

import json
import socket
import sys

import boto3
from moto.server import ThreadedMotoServer


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main():
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    cognito = boto3.client(
        "cognito-idp",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="moto",
        aws_secret_access_key="moto",
    )
    flows = ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]

    def pool_with_user(name, username, groups):
        pool = cognito.create_user_pool(PoolName=name)["UserPool"]["Id"]
        client = cognito.create_user_pool_client(
            UserPoolId=pool, ClientName=f"{name}-app", ExplicitAuthFlows=flows
        )["UserPoolClient"]["ClientId"]
        cognito.admin_create_user(UserPoolId=pool, Username=username, TemporaryPassword="Temp-pass1!")
        cognito.admin_set_user_password(
            UserPoolId=pool, Username=username, Password="Secret-pass1!", Permanent=True
        )
        for group in groups:
            cognito.create_group(UserPoolId=pool, GroupName=group)
            cognito.admin_add_user_to_group(UserPoolId=pool, Username=username, GroupName=group)
        return pool, client

    def sign_in(client, username):
        return cognito.initiate_auth(
            ClientId=client,
            AuthFlow="USER_PASSWORD_AUTH",
            AuthParameters={"USERNAME": username, "PASSWORD": "Secret-pass1!"},
        )["AuthenticationResult"]

    pool, client = pool_with_user("main", "alice", ["Admins"])
    cognito.admin_create_user(UserPoolId=pool, Username="bob", TemporaryPassword="Temp-pass1!")
    cognito.admin_set_user_password(UserPoolId=pool, Username="bob", Password="Secret-pass1!", Permanent=True)
    other_client = cognito.create_user_pool_client(
        UserPoolId=pool, ClientName="other-app", ExplicitAuthFlows=flows
    )["UserPoolClient"]["ClientId"]
    foreign_pool, foreign_client = pool_with_user("foreign", "mallory", [])

    all_flows = flows + ["ALLOW_USER_SRP_AUTH"]
    auth_client = cognito.create_user_pool_client(
        UserPoolId=pool, ClientName="auth-app", ExplicitAuthFlows=all_flows
    )["UserPoolClient"]["ClientId"]
    secret_client = cognito.create_user_pool_client(
        UserPoolId=pool, ClientName="secret-app", ExplicitAuthFlows=all_flows, GenerateSecret=True
    )["UserPoolClient"]
    identity = boto3.client(
        "cognito-identity",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="moto",
        aws_secret_access_key="moto",
    )
    identity_pool = identity.create_identity_pool(
        IdentityPoolName="main",
        AllowUnauthenticatedIdentities=True,
        CognitoIdentityProviders=[
            {"ProviderName": f"cognito-idp.us-east-1.amazonaws.com/{pool}", "ClientId": auth_client}
        ],
    )["IdentityPoolId"]

    alice = sign_in(client, "alice")
    bob = sign_in(client, "bob")
    print(
        json.dumps(
            {
                "jwksURL": f"{url}/{pool}/.well-known/jwks.json",
                "poolId": pool,
                "clientId": client,
                "aliceId": alice["IdToken"],
                "aliceAccess": alice["AccessToken"],
                "bobId": bob["IdToken"],
                "otherClientId": sign_in(other_client, "alice")["IdToken"],
                "foreignPoolId": sign_in(foreign_client, "mallory")["IdToken"],
                "endpoint": url,
                "authClientId": auth_client,
                "secretClientId": secret_client["ClientId"],
                "clientSecret": secret_client["ClientSecret"],
                "identityPoolId": identity_pool,
            }
        ),
        flush=True,
    )
    sys.stdin.read()
    server.stop()


if __name__ == "__main__":
    main()
