"""Drives the local Cognito's groups with boto3's cognito-idp client, and a groups rule of the
API with gql authorized by the ID tokens the pool issues.

Usage: cognito_groups.py ORIGIN POOL_ID CLIENT_ID
Prints one JSON object: each step's result, or "ExceptionName: message" when it was refused.
"""
import asyncio
import json
import sys

import boto3
import jwt
from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncJWTAuthentication
from gql.transport.exceptions import TransportQueryError

origin, pool_id, client_id = sys.argv[1:4]
host = origin.split("://", 1)[1]
results = {}
# The IAM credentials StratusTesting's LocalBackend configures: the administrator's.
idp = boto3.client(
    "cognito-idp", endpoint_url=origin, region_name="us-east-1",
    aws_access_key_id="AKIDSTRATUSTEST", aws_secret_access_key="stratus/test/secret",
    aws_session_token="stratus-session",
)


def step(name, call):
    try:
        results[name] = call()
    except Exception as error:  # the test asserts on the exception name and message
        response = getattr(error, "response", None)
        if response is not None:
            results[name] = f"{response['Error']['Code']}: {response['Error']['Message']}"
        else:
            results[name] = f"{type(error).__name__}: {error}"


def described(group):
    return {key: group[key] for key in sorted(group) if key not in ("CreationDate", "LastModifiedDate")}


def id_token(username):
    result = idp.initiate_auth(
        ClientId=client_id, AuthFlow="USER_PASSWORD_AUTH",
        AuthParameters={"USERNAME": username, "PASSWORD": "Secret-pass1!"})
    return result["AuthenticationResult"]["IdToken"]


step("createGroup", lambda: described(idp.create_group(
    UserPoolId=pool_id, GroupName="Editors", Description="Who may edit", Precedence=1)["Group"]))
step("createGroupAgain", lambda: idp.create_group(UserPoolId=pool_id, GroupName="Editors"))
step("getGroup", lambda: described(idp.get_group(UserPoolId=pool_id, GroupName="Editors")["Group"]))
step("getUnknownGroup", lambda: idp.get_group(UserPoolId=pool_id, GroupName="Nobody"))
step("listGroups", lambda: [described(g) for g in idp.list_groups(UserPoolId=pool_id)["Groups"]])
step("addToGroup", lambda: idp.admin_add_user_to_group(
    UserPoolId=pool_id, Username="gina", GroupName="Editors")["ResponseMetadata"]["HTTPStatusCode"])
step("addToUnknownGroup", lambda: idp.admin_add_user_to_group(
    UserPoolId=pool_id, Username="gina", GroupName="Nobody"))
step("ginaGroups", lambda: [described(g) for g in idp.admin_list_groups_for_user(
    UserPoolId=pool_id, Username="gina")["Groups"]])
gina, hank = id_token("gina"), id_token("hank")
step("ginaClaim", lambda: jwt.decode(gina, options={"verify_signature": False}).get("cognito:groups"))
step("hankClaim", lambda: jwt.decode(hank, options={"verify_signature": False}).get("cognito:groups"))
step("unsigned", lambda: boto3.client(
    "cognito-idp", endpoint_url=origin, region_name="us-east-1",
    aws_access_key_id="AKIDSTRATUSTEST", aws_secret_access_key="wrong-secret",
).list_groups(UserPoolId=pool_id))


async def graphql(token, document):
    transport = AIOHTTPTransport(url=f"{origin}/graphql", auth=AppSyncJWTAuthentication(host=host, jwt=token))
    try:
        async with Client(transport=transport, fetch_schema_from_transport=False, execute_timeout=60) as session:
            return await session.execute(gql(document))
    except TransportQueryError as error:
        return "; ".join(f"{e.get('errorType')}: {e.get('message')}" for e in error.errors or [])
    except Exception as error:
        return f"{type(error).__name__}: {error}"


async def graphql_steps():
    create = 'mutation { createArticle(input: {id: "a1", title: "Draft"}) { id title } }'
    results["ginaCreates"] = await graphql(gina, create)
    results["hankCreates"] = await graphql(hank, create.replace("a1", "a2"))
    results["hankLists"] = await graphql(hank, "{ listArticles { items { id } } }")
    results["ginaLists"] = await graphql(gina, "{ listArticles { items { id } } }")

asyncio.run(graphql_steps())

# A deleted group leaves its members, and their next tokens no longer name it.
step("deleteGroup", lambda: idp.delete_group(
    UserPoolId=pool_id, GroupName="Editors")["ResponseMetadata"]["HTTPStatusCode"])
step("ginaClaimAfterDelete", lambda: jwt.decode(
    id_token("gina"), options={"verify_signature": False}).get("cognito:groups"))
step("listGroupsAfterDelete", lambda: [g["GroupName"] for g in idp.list_groups(UserPoolId=pool_id)["Groups"]])

print(json.dumps(results, sort_keys=True))
