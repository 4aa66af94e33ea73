"""Drives the local backend with gql, a GraphQL client nobody here wrote.

Usage: gql_http.py URL HOST API_KEY ACCESS_KEY SECRET TOKEN
Prints one JSON object with each step's result or error.
"""
import asyncio
import json
import sys

from botocore.credentials import Credentials
from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication, AppSyncIAMAuthentication


async def run(transport, document, variables=None):
    try:
        async with Client(transport=transport, fetch_schema_from_transport=False, execute_timeout=60) as session:
            return {"data": await session.execute(gql(document), variable_values=variables)}
    except Exception as error:  # the test asserts on the message
        return {"error": f"{type(error).__name__}: {error}"}


async def main():
    url, host, api_key, access_key, secret, token = sys.argv[1:7]
    api_key_auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
    iam_auth = AppSyncIAMAuthentication(
        host=host, region_name="us-east-1", credentials=Credentials(access_key, secret, token)
    )
    wrong_auth = AppSyncIAMAuthentication(
        host=host, region_name="us-east-1", credentials=Credentials(access_key, "wrong-secret", token)
    )
    create = """
        mutation Create($input: CreatePostInput!) {
          createPost(input: $input) { id title rating status }
        }
    """
    get = "query Get($id: ID!) { getPost(id: $id) { id title _version } }"
    results = {
        "apiKeyCreate": await run(
            AIOHTTPTransport(url=url, auth=api_key_auth),
            create,
            {"input": {"id": "gql-1", "title": "From gql", "rating": 4, "status": "DRAFT"}},
        ),
        "iamGet": await run(AIOHTTPTransport(url=url, auth=iam_auth), get, {"id": "gql-1"}),
        "iamCreate": await run(
            AIOHTTPTransport(url=url, auth=iam_auth),
            create,
            {"input": {"id": "gql-2", "title": "Signed", "rating": 5, "status": "PUBLISHED"}},
        ),
        "wrongSecret": await run(AIOHTTPTransport(url=url, auth=wrong_auth), get, {"id": "gql-1"}),
    }
    print(json.dumps(results, sort_keys=True))


asyncio.run(main())
