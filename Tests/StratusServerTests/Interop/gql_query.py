"""Runs GraphQL documents with gql over HTTP with an API key, in order.

Usage: gql_query.py URL HOST API_KEY DOCUMENT...
Prints one JSON list: each document's data, or its error.
"""
import asyncio
import json
import sys

from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication
from gql.transport.exceptions import TransportQueryError


async def main():
    url, host, api_key = sys.argv[1:4]
    auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
    results = []
    async with Client(transport=AIOHTTPTransport(url=url, auth=auth), execute_timeout=60) as session:
        for document in sys.argv[4:]:
            try:
                results.append({"data": await session.execute(gql(document))})
            except TransportQueryError as error:
                results.append({"errors": error.errors})
    print(json.dumps(results))


asyncio.run(main())
