"""Subscribes to a hand-written subscription with gql's AppSyncWebsocketsTransport and fires it
with a hand-written mutation sent over HTTP (the pub/sub pattern of a NONE data source).

Usage: gql_pubsub.py HTTP_URL REALTIME_URL HOST API_KEY
Publishes to "sports" and "news" until the subscriber of "news" hears one, then publishes "last"
to "news". Prints one JSON object with the events heard, or the error.
"""
import asyncio
import json
import sys

from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication
from gql.transport.appsync_websockets import AppSyncWebsocketsTransport

SUBSCRIPTION = 'subscription { onPublish(channel: "news") { channel text } }'
PUBLISH = "mutation Publish($channel: String!, $text: String!) { publish(channel: $channel, text: $text) { channel text } }"


async def main():
    http_url, realtime_url, host, api_key = sys.argv[1:5]
    auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
    events = []

    async def listen():
        transport = AppSyncWebsocketsTransport(url=realtime_url, auth=auth)
        async with Client(transport=transport, fetch_schema_from_transport=False) as session:
            subscription = session.subscribe(gql(SUBSCRIPTION))
            async for result in subscription:
                events.append(result["onPublish"])
                if result["onPublish"]["text"] == "last":
                    break
            await subscription.aclose()

    try:
        listener = asyncio.create_task(listen())
        async with Client(
            transport=AIOHTTPTransport(url=http_url, auth=auth), fetch_schema_from_transport=False, execute_timeout=60
        ) as http:
            # Until the subscription is acknowledged, what is published is not heard: publish until it is.
            for index in range(600):
                if events or listener.done():
                    break
                for channel in ("sports", "news"):
                    await http.execute(gql(PUBLISH), variable_values={"channel": channel, "text": f"m{index}"})
                await asyncio.sleep(0.05)
            await http.execute(gql(PUBLISH), variable_values={"channel": "news", "text": "last"})
        await asyncio.wait_for(listener, 30)
        print(json.dumps({"events": events}))
    except Exception as error:  # the test asserts on the message
        print(json.dumps({"error": f"{type(error).__name__}: {error}", "events": events}))


asyncio.run(main())
