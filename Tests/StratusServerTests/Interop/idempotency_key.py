"""Sends mutations with an Idempotency-Key header using clients nobody here wrote.

Usage: idempotency_key.py URL HOST API_KEY ACCESS_KEY SECRET TOKEN
requests sends the same mutation twice and another body once with one key, with the API key;
gql sends the first mutation with the same key, signed with IAM (another caller).
Prints one JSON object with each step's status, Idempotent-Replayed header and body.
"""
import asyncio
import json
import sys

import requests
from botocore.credentials import Credentials
from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncIAMAuthentication

CREATE = 'mutation { createNote(input: {text: "hello"}) { id text _version } }'
OTHER = 'mutation { createNote(input: {text: "other"}) { id } }'


def send(url, api_key, query, key):
    response = requests.post(
        url,
        json={"query": query},
        headers={"x-api-key": api_key, "Idempotency-Key": key},
        timeout=30,
    )
    return {
        "status": response.status_code,
        "replayed": response.headers.get("Idempotent-Replayed"),
        "body": response.json(),
    }


async def signed(url, host, access_key, secret, token):
    auth = AppSyncIAMAuthentication(
        host=host, region_name="us-east-1", credentials=Credentials(access_key, secret, token)
    )
    transport = AIOHTTPTransport(url=url, auth=auth, headers={"Idempotency-Key": "python-key"})
    async with Client(transport=transport, fetch_schema_from_transport=False, execute_timeout=30) as session:
        return await session.execute(gql(CREATE))


def main():
    url, host, api_key, access_key, secret, token = sys.argv[1:7]
    results = {
        "first": send(url, api_key, CREATE, "python-key"),
        "repeat": send(url, api_key, CREATE, "python-key"),
        "other": send(url, api_key, OTHER, "python-key"),
        "iam": asyncio.run(signed(url, host, access_key, secret, token)),
    }
    print(json.dumps(results))


main()
