"""Subscribes to the local backend with gql's AppSyncWebsocketsTransport.

Usage: gql_ws.py HTTP_URL REALTIME_URL HOST API_KEY ACCESS_KEY SECRET TOKEN
For API-key and IAM authentication in turn: subscribes to onCreatePost with a filter, creates
posts over HTTP (some matching, some not), collects the events, then leaves the subscription,
which sends `stop`. Prints one JSON object with each step's events or error.
"""
import asyncio
import json
import sys

from botocore.credentials import Credentials
from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication, AppSyncIAMAuthentication
from gql.transport.appsync_websockets import AppSyncWebsocketsTransport

SUBSCRIPTION = """
    subscription Created($filter: ModelSubscriptionPostFilterInput) {
      onCreatePost(filter: $filter) { id title rating }
    }
"""
CREATE = """
    mutation Create($input: CreatePostInput!) {
      createPost(input: $input) { id title rating }
    }
"""


async def subscribe_and_create(http_url, realtime_url, auth, prefix):
    events = []
    ready = asyncio.Event()

    async def listen():
        transport = AppSyncWebsocketsTransport(url=realtime_url, auth=auth)
        async with Client(transport=transport, fetch_schema_from_transport=False) as session:
            ready.set()
            subscription = session.subscribe(
                gql(SUBSCRIPTION), variable_values={"filter": {"title": {"beginsWith": prefix}}}
            )
            async for result in subscription:
                events.append(result["onCreatePost"])
                if len(events) == 3:
                    break
            # Closing the generator sends `stop`; without it the session waits for `complete`
            # until its close timeout.
            await subscription.aclose()

    try:
        listener = asyncio.create_task(listen())
        await asyncio.wait_for(ready.wait(), 30)
        # The start message is sent once the subscription is iterated: give it time to be acknowledged.
        await asyncio.sleep(1)
        # A loaded machine (the whole suite in parallel) may take longer than gql's default 10 s.
        async with Client(
            transport=AIOHTTPTransport(url=http_url, auth=auth), fetch_schema_from_transport=False, execute_timeout=60
        ) as http:
            for index in range(3):
                for title in (f"{prefix}{index}", f"other-{prefix}{index}"):
                    await http.execute(
                        gql(CREATE),
                        variable_values={
                            "input": {"id": title, "title": title, "rating": index, "status": "DRAFT"}
                        },
                    )
        await asyncio.wait_for(listener, 30)
        return {"events": events}
    except Exception as error:  # the test asserts on the message
        return {"error": f"{type(error).__name__}: {error}", "events": events}


async def main():
    http_url, realtime_url, host, api_key, access_key, secret, token = sys.argv[1:8]
    api_key_auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
    iam_auth = AppSyncIAMAuthentication(
        host=host, region_name="us-east-1", credentials=Credentials(access_key, secret, token or None)
    )
    results = {
        "apiKey": await subscribe_and_create(http_url, realtime_url, api_key_auth, "key-"),
        "iam": await subscribe_and_create(http_url, realtime_url, iam_auth, "iam-"),
    }
    print(json.dumps(results, sort_keys=True))


asyncio.run(main())
