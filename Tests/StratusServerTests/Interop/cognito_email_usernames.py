"""Signs up and in with an email as the sign-in name (a pool with UsernameAttributes email),
with boto3's cognito-idp client and pycognito's SRP.

Usage: cognito_email_usernames.py ORIGIN POOL_ID CLIENT_ID
Prints one JSON object: each step's result, or "ExceptionName: message" when it was refused.
"""
import json
import sys

import boto3
import jwt
from pycognito.aws_srp import AWSSRP

origin, pool_id, client_id = sys.argv[1:4]
results = {}
# The IAM credentials StratusTesting's LocalBackend configures: the administrator's.
idp = boto3.client(
    "cognito-idp", endpoint_url=origin, region_name="us-east-1",
    aws_access_key_id="AKIDSTRATUSTEST", aws_secret_access_key="stratus/test/secret",
    aws_session_token="stratus-session",
)
EMAIL, PASSWORD = "ivy@example.com", "Secret-pass1!"


def step(name, call):
    try:
        results[name] = call()
    except Exception as error:  # the test asserts on the exception name and message
        response = getattr(error, "response", None)
        if response is not None:
            results[name] = f"{response['Error']['Code']}: {response['Error']['Message']}"
        else:
            results[name] = f"{type(error).__name__}: {error}"


def claims(token):
    decoded = jwt.decode(token, options={"verify_signature": False})
    return {
        "usernameIsSub": decoded.get("cognito:username", decoded.get("username")) == sub,
        "email": decoded.get("email"),
    }


sub = idp.sign_up(ClientId=client_id, Username=EMAIL, Password=PASSWORD)["UserSub"]
step("signUpWithoutEmail", lambda: idp.sign_up(ClientId=client_id, Username="ivy", Password=PASSWORD))
step("signUpAgain", lambda: idp.sign_up(ClientId=client_id, Username=EMAIL, Password=PASSWORD))
step("unconfirmed", lambda: idp.initiate_auth(
    ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH", AuthParameters={"USERNAME": EMAIL, "PASSWORD": PASSWORD}))
step("confirm", lambda: idp.admin_confirm_sign_up(
    UserPoolId=pool_id, Username=EMAIL)["ResponseMetadata"]["HTTPStatusCode"])
step("passwordSignIn", lambda: claims(idp.initiate_auth(
    ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
    AuthParameters={"USERNAME": EMAIL, "PASSWORD": PASSWORD})["AuthenticationResult"]["IdToken"]))
step("wrongPassword", lambda: idp.initiate_auth(
    ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
    AuthParameters={"USERNAME": EMAIL, "PASSWORD": "Wrong-pass1!"}))
srp_result = AWSSRP(username=EMAIL, password=PASSWORD, pool_id=pool_id, client_id=client_id, client=idp)
step("srpSignIn", lambda: claims(srp_result.authenticate_user()["AuthenticationResult"]["IdToken"]))
step("accessUsernameIsSub", lambda: jwt.decode(srp_result.authenticate_user()["AuthenticationResult"]["AccessToken"],
                                               options={"verify_signature": False})["username"] == sub)
step("adminGetUser", lambda: (user := idp.admin_get_user(UserPoolId=pool_id, Username=EMAIL))["Username"] == sub
     and {a["Name"]: a["Value"] for a in user["UserAttributes"]}["email"])
step("listUsers", lambda: [(u["Username"] == sub, {a["Name"]: a["Value"] for a in u["Attributes"]}["email"])
                           for u in idp.list_users(UserPoolId=pool_id)["Users"]])

print(json.dumps(results, sort_keys=True))
